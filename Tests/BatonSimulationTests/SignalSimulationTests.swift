import Foundation
import Testing

@testable import BatonSimulation

/// Signal nodes under faults: seeds that draw the signal graphs send their signals at random moments
/// (before and after the nodes wait, across coordinator crashes), and every signal node ends with
/// exactly the value sent, or timed out, never both; a second signal and a late one are refused.
@Suite("baton-sim: signals", .serialized)
struct SignalSimulationTests {
    @Test(arguments: [2, 4])
    func seedsWithSignalsKeepEveryGuarantee(seed: Int) async throws {
        let result = try await SimulatorTests.sim(["--seed", String(seed), "--steps", "1500"])
        #expect(result.status == 0, "\(result.stdout.suffix(2000))")
        #expect(result.stdout.contains("submit signal as"), "this seed draws the signal graphs")
        #expect(result.stdout.contains("submit signal-timeout as"))
        #expect(result.stdout.contains("signal to approve of"))
        #expect(result.stdout.contains("signal to early of"))
        #expect(result.stdout.hasSuffix("violations 0\n"), "\(result.stdout.suffix(400))")
    }
}
