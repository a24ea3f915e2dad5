import Foundation
import Testing

@testable import BatonSimulation

/// Pauses under faults: seeds that draw pauses pause runs, pools and procedures for 1 to 20 virtual
/// seconds at random moments, across crashes, cuts and take-overs; no coordinator queues what was
/// paused when its turn began, and every run ends once the pauses end. Seed 7 broke the invariant when
/// the scheduler ignored the pauses, and when the coordinator did not read them on a notification,
/// a poll or a balance (checked by hand: the invariant can fail). Seed 152 queued a node in a turn
/// after the pause that it had decided before it, its commit held while the broker blocked publishers:
/// the invariant judges decisions (`CoordinatorConfiguration.decided`), not commits.
@Suite("baton-sim: pauses", .serialized)
struct PauseSimulationTests {
    @Test(arguments: [7, 16, 152])
    func seedsWithPausesKeepEveryGuarantee(seed: Int) async throws {
        // As found: versions and fair shares change the draws.
        let result = try await SimulatorTests.sim(["--seed", String(seed), "--steps", "2000", "--no-versions", "--no-fair-shares"])
        #expect(result.status == 0, "\(result.stdout.suffix(2000))")
        #expect(result.stdout.contains("pauses among"), "this seed draws pauses")
        #expect(result.stdout.contains(" pause run "), "it pauses a run")
        #expect(result.stdout.contains("every pause ends"))
        #expect(result.stdout.hasSuffix("violations 0\n"), "\(result.stdout.suffix(400))")
    }

    /// Seed 2019 of the webhooks' simulation ended with two nodes of one run queued holding mutex
    /// 'disk' (limit 1): a node told its grant was paused (releasing the hold, in a batch whose commit
    /// a database restart held back), resumed (a new request), then told the same grant again, read
    /// from the store before that release was committed; the release then deleted the row it was
    /// queued on, and the next grant went to another node. A grant of a node whose release the
    /// uncommitted batch holds is now stale (`GrantDecision.stale`).
    @Test func seed2019OfTheWebhooksRunKeepsMutexesWithPauses() async throws {
        let result = try await SimulatorTests.sim(["--seed", "2019", "--steps", "2000", "--queue-type", "classic", "--webhooks"])
        #expect(result.status == 0, "\(result.stdout.suffix(600))")
        #expect(result.stdout.contains("pause run"), "the seed pauses a run")
        #expect(result.stdout.hasSuffix("violations 0\n"), "\(result.stdout.suffix(600))")
    }

    @Test func withoutPausesNoSeedPauses() async throws {
        let result = try await SimulatorTests.sim(["--seed", "7", "--steps", "300", "--no-pauses"])
        #expect(result.status == 0)
        #expect(!result.stdout.contains("pauses among"))
    }
}
