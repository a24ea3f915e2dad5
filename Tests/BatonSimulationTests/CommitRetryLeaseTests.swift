import Baton
import BatonCoordinator
import BatonSimulation
import BatonStore
import Foundation
import Testing

/// A commit the store keeps refusing for a passing reason (a lock wait, a serialization failure) is
/// retried after back-offs; meanwhile the coordinator still renews its partitions' leases, so it keeps
/// them however long the retries take, instead of losing every one to a peer that would meet the same
/// error and being fenced off (simulator seed 870 of issue 31).
@Suite("A commit retried past the partition lease")
struct CommitRetryLeaseTests {
    static let graph = try! GraphDecoder().decode(try! JSONParser.parse(#"{"nodes": {"a": {"procedure": "baton.echo"}}}"#))

    @Test func theCoordinatorKeepsItsPartitionsWhileItsCommitIsRetried() throws {
        let fixture = try LeasedCoordinator()
        let (clock, store, broker, coordinator, reader) = (fixture.clock, fixture.store, fixture.broker, fixture.coordinator, fixture.reader)

        // Every commit fails with a lock timeout for longer than three leases, then goes in.
        store.failNext(.apply, with: .retry, count: 20, sqlState: "55P03")
        let id = store.submit(Self.graph)
        let began = clock.now
        for _ in 0..<5 where store.node("a", ofRun: id)?.status != .queued {
            #expect(coordinator.turn() == nil)
            broker.deliverConfirms()
            clock.advance(0.1)
        }
        #expect(clock.now.timeIntervalSince(began) > 3 * 10.0, "the retries took \(clock.now.timeIntervalSince(began)) s")
        #expect(store.node("a", ofRun: id)?.status == .queued)
        let leases = try reader.partitionLeases()
        #expect(leases.allSatisfy { $0.owner == "coordinator-a" && ($0.secondsLeft ?? 0) > 0 }, "\(leases)")
        #expect(store.fencedWrites == 0)
    }
}
