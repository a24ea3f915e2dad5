import Baton
import BatonCoordinator
import BatonSimulation
import BatonStore
import Foundation
import Testing

/// A broker that does not confirm (a network cut that drops its answers, a block) holds up the
/// coordinator's confirms, not its store duties: it waits in slices of a fifth of the partition lease
/// at most, renewing its partitions' leases between them, where one 30 s wait let them run out and
/// the coordinator was fenced off after (issue 31, part 5; the chaos suite's broker cut).
@Suite("Waiting for confirms renews the partitions")
struct ConfirmWaitLeaseTests {
    static let graph = try! GraphDecoder().decode(try! JSONParser.parse(#"{"nodes": {"a": {"procedure": "baton.echo"}}}"#))

    /// What the waits saw: how many timed out, and the least lease left of the waiting coordinator.
    final class Seen: @unchecked Sendable {
        var waits = 0
        var lowest = Double.infinity
    }

    @Test func aCoordinatorWaitingForConfirmsKeepsItsPartitions() throws {
        let fixture = try LeasedCoordinator()
        let (clock, store, broker, coordinator, reader) = (fixture.clock, fixture.store, fixture.broker, fixture.coordinator, fixture.reader)

        // The broker stops confirming; a task goes out unconfirmed.
        broker.blocksPublishers = "low on memory"
        let id = store.submit(Self.graph)
        for _ in 0..<5 where store.node("a", ofRun: id)?.status != .queued {
            #expect(coordinator.turn() == nil)
            clock.advance(0.1)
        }
        #expect(store.node("a", ofRun: id)?.status == .queued)

        // Another coordinator appears: this one hands over half its partitions, after its confirms.
        _ = try reader.announce(CoordinatorAnnouncement(id: "coordinator-b", host: "h", pid: 2, leaseSeconds: 10))
        let seen = Seen()
        broker.onTimedOutWait = { seconds in
            clock.advance(seconds)
            seen.waits += 1
            let left = (try? reader.partitionLeases())?.filter { $0.owner == "coordinator-a" }.compactMap(\.secondsLeft).min()
            seen.lowest = min(seen.lowest, left ?? -1)
        }
        clock.advance(2.5)
        _ = coordinator.turn()
        #expect(seen.waits > 10, "\(seen.waits) wait(s)")
        #expect(seen.lowest > 0, "a lease ran out while it waited: \(seen.lowest) s left")
    }
}
