import Foundation
import Testing

@testable import BatonSimulation

/// Procedure versions under faults: even workers serve `sim.version` version 1, odd ones version 2;
/// seeds that draw the versions graph end each pinned node with its own version's output, and no
/// worker ever starts a task of a version it does not serve (`InvariantChecker.served`).
@Suite("baton-sim: versions", .serialized)
struct VersionSimulationTests {
    @Test(arguments: [2, 5])
    func seedsWithVersionsKeepEveryGuarantee(seed: Int) async throws {
        let result = try await SimulatorTests.sim(["--seed", String(seed), "--steps", "1500"])
        #expect(result.status == 0, "\(result.stdout.suffix(2000))")
        #expect(result.stdout.contains("submit versions as"), "this seed draws the versions graph")
        #expect(result.stdout.hasSuffix("violations 0\n"), "\(result.stdout.suffix(400))")
    }

    @Test func aWorkerServesTheVersionsOfItsParity() {
        #expect(VersionProcedures.registry(worker: 0, of: 3).names.filter { $0.hasPrefix("sim.") } == ["sim.version"])
        #expect(VersionProcedures.registry(worker: 1, of: 3).names.filter { $0.hasPrefix("sim.") } == ["sim.version@2"])
        #expect(VersionProcedures.registry(worker: 0, of: 1).names.filter { $0.hasPrefix("sim.") } == ["sim.version", "sim.version@2"])
    }
}
