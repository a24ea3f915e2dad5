import Baton
import BatonPostgres
import BatonSimulation
import BatonStore
import Foundation
import Testing

/// Partition leases and the fence behave the same on PostgreSQL (`Store`) and on the twin:
/// epochs grow at each change of owner, a lease is renewed only by its holder under its epoch,
/// an expired one is free, and a commit under a lost epoch writes nothing.
@Suite("partition leases keep the Store contract", .serialized)
struct PartitionContractTests {
    /// Frees every partition of the contract database and sets its epochs back to 0.
    static func reset(_ backend: ContractBackend) throws {
        guard backend.memory == nil else { return }
        let sql = try PGConnection(url: ContractBackend.databaseURL)
        defer { sql.close() }
        try sql.execute("update baton.partitions set owner = null, epoch = 0, lease_until = null")
    }

    /// What `body` saw on PostgreSQL, then on the twin, each given its store, a one-node run
    /// submitted there and that run's partition, with every partition free at epoch 0.
    static func onBothWithARun(_ body: (any CoordinatorStore, String, Int) throws -> [String]) throws -> [[String]] {
        let graph = try StoreContractTests.graph(#"{"nodes": {"a": {"procedure": "p"}}}"#)
        var results: [[String]] = []
        try StoreContractTests.onBoth(graph) { backend, id throws in
            try reset(backend)
            results.append(try body(backend.store, id, RunPartition.of(id, count: 64)))
        }
        return results
    }

    @Test func leasesAreTakenRenewedAndReleasedTheSame() throws {
        var results: [[String]] = []
        for backend in [try ContractBackend.postgres(), try ContractBackend.memory()] {
            defer { backend.finish([]) }
            try Self.reset(backend)
            let store = backend.store
            var seen = ["count \(try store.partitionCount())"]
            let a = try store.acquirePartitions([0, 1, 2], coordinator: "a", leaseSeconds: 30)
            let b = try store.acquirePartitions([1, 2, 3], coordinator: "b", leaseSeconds: 30)
            seen.append("a took \(a.sorted { $0.key < $1.key }), b took \(b.sorted { $0.key < $1.key })")
            seen.append("a renews \(try store.renewPartitions(a, coordinator: "a", leaseSeconds: 30).sorted())")
            seen.append("b renews a's \(try store.renewPartitions([1: 1], coordinator: "b", leaseSeconds: 30).sorted())")
            seen.append("a renews under an old epoch \(try store.renewPartitions([0: 0], coordinator: "a", leaseSeconds: 30).sorted())")
            try store.releasePartitions([0: 1], coordinator: "a")
            seen.append("b after a released 0: \(try store.acquirePartitions([0], coordinator: "b", leaseSeconds: 30))")
            _ = try store.acquirePartitions([10], coordinator: "a", leaseSeconds: -1)  // run out at once
            seen.append("b takes an expired lease: \(try store.acquirePartitions([10], coordinator: "b", leaseSeconds: 30))")
            let leases = try store.partitionLeases().filter { $0.owner != nil }
            seen.append(leases.map { "\($0.partition):\($0.owner!)#\($0.epoch)" }.joined(separator: " "))
            results.append(seen)
        }
        #expect(results[0] == results[1])
        #expect(
            results[1] == [
                "count 64", "a took [(key: 0, value: 1), (key: 1, value: 1), (key: 2, value: 1)], b took [(key: 3, value: 1)]",
                "a renews [0, 1, 2]", "b renews a's []", "a renews under an old epoch []", "b after a released 0: [0: 2]",
                "b takes an expired lease: [10: 2]", "0:b#2 1:a#1 2:a#1 3:b#1 10:b#2",
            ], "\(results[1])")
    }

    /// Live coordinators are those that announced within their lease on a session still open: one
    /// whose session ended (a kill -9) is gone at once, and its partitions are free before their
    /// lease runs out; one that withdrew is gone too. The same on both.
    @Test func aCoordinatorWhoseSessionEndedIsGoneAndItsPartitionsFree() throws {
        var results: [[String]] = []
        for backend in [try ContractBackend.postgres(), try ContractBackend.memory()] {
            defer { backend.finish([]) }
            try Self.reset(backend)
            if backend.memory == nil {  // earlier runs' rows
                let sql = try PGConnection(url: ContractBackend.databaseURL)
                try sql.execute("delete from baton.coordinators")
                sql.close()
            }
            let other = try backend.connect()
            var seen: [String] = []
            seen.append("a sees \(try backend.store.announce(CoordinatorAnnouncement(id: "a", host: "h", pid: 1, leaseSeconds: 30)))")
            seen.append("b sees \(try other.announce(CoordinatorAnnouncement(id: "b", host: "h", pid: 2, leaseSeconds: 30, runs: 3)))")
            seen.append("b took \(try other.acquirePartitions([4, 5], coordinator: "b", leaseSeconds: 30).sorted { $0.key < $1.key })")
            seen.append("a cannot take b's: \(try backend.store.acquirePartitions([4], coordinator: "a", leaseSeconds: 30))")
            seen.append("b holds \(try backend.store.partitionLeases().filter { $0.owner == "b" && !$0.isFree }.map(\.partition))")
            if let memory = other as? MemoryStoreConnection { memory.dropConnection() } else { other.close() }
            // PostgreSQL ends the backend just after the connection closes: wait for it, with a deadline.
            let deadline = Date().addingTimeInterval(10)
            let a = CoordinatorAnnouncement(id: "a", host: "h", pid: 1, leaseSeconds: 30)
            while try backend.store.announce(a).contains("b"), Date() < deadline { usleep(10_000) }
            seen.append(
                "after b's session ended a sees \(try backend.store.announce(CoordinatorAnnouncement(id: "a", host: "h", pid: 1, leaseSeconds: 30)))")
            seen.append("a takes b's: \(try backend.store.acquirePartitions([4, 5], coordinator: "a", leaseSeconds: 30).sorted { $0.key < $1.key })")
            try backend.store.withdraw(coordinator: "a")
            let third = try backend.connect()
            seen.append("after a withdrew c sees \(try third.announce(CoordinatorAnnouncement(id: "c", host: "h", pid: 3, leaseSeconds: 30)))")
            third.close()
            results.append(seen)
        }
        #expect(results[0] == results[1])
        #expect(
            results[1] == [
                "a sees [\"a\"]", "b sees [\"a\", \"b\"]", "b took [(key: 4, value: 1), (key: 5, value: 1)]", "a cannot take b's: [:]",
                "b holds [4, 5]", "after b's session ended a sees [\"a\"]",
                "a takes b's: [(key: 4, value: 2), (key: 5, value: 2)]", "after a withdrew c sees [\"c\"]",
            ], "\(results[1])")
    }

    /// A coordinator writes for its partitions' runs; once another took the partition over, its
    /// commits and `failRun` are refused (class `reconnect`) and write nothing.
    @Test func aCommitUnderALostEpochWritesNothing() throws {
        let results = try Self.onBothWithARun { store, id, part throws in
            let first = try store.acquirePartitions([part], coordinator: "old", leaseSeconds: 30)
            let queued: [SchedulerCommand] = [.runStatus(.running, error: nil), .node(NodeChange(key: "a", status: .queued, attempt: 1, input: [:]))]
            func attempt(_ commands: [SchedulerCommand]?) -> String {
                do {
                    let batch = commands.map { [(id, $0)] } ?? []
                    _ = try store.apply(batch, heartbeats: [], handledRequests: [], confirmedBatch: nil, holds: [], now: Date())
                    return "stored"
                } catch { return "\(StoreFailure(error)): \(String(describing: error).contains("no longer holds all of partitions {\(part)}"))" }
            }
            var seen: [String] = []
            store.fence = PartitionFence(coordinator: "old", count: 64, epochs: first)
            seen.append("owner writes: \(attempt(queued))")
            try store.releasePartitions(first, coordinator: "old")
            let second = try store.acquirePartitions([part], coordinator: "new", leaseSeconds: 30)
            seen.append("epochs \(first[part] ?? -1) then \(second[part] ?? -1)")
            let started: [SchedulerCommand] = [.node(NodeChange(key: "a", status: .running, attempt: 1, worker: "w"))]
            seen.append("old owner writes: \(attempt(started))")
            do {
                try store.failRun(id, error: "old owner")
                seen.append("old owner fails the run")
            } catch { seen.append("old owner's failRun: \(StoreFailure(error))") }
            store.fence = PartitionFence(coordinator: "old", count: 64, epochs: [:])
            seen.append("not held at all: \(attempt(started))")
            seen.append("a report that changed nothing still needs its partition: \(attempt([]))")
            seen.append("a heartbeat alone needs no partition: \(attempt(nil))")
            store.fence = PartitionFence(coordinator: "new", count: 64, epochs: second)
            seen.append("new owner writes: \(attempt(started))")
            store.fence = nil
            let state = try #require(try store.loadRun(id))
            seen.append("\(state.status) a=\(state.nodes["a"]!.status)")
            return seen
        }
        #expect(results[0] == results[1])
        #expect(
            results[1] == [
                "owner writes: stored", "epochs 1 then 2", "old owner writes: reconnect: true", "old owner's failRun: reconnect",
                "not held at all: reconnect: true", "a report that changed nothing still needs its partition: reconnect: true",
                "a heartbeat alone needs no partition: stored", "new owner writes: stored",
                "running a=running",
            ], "\(results[1])")
    }

    /// `failRun` checks its fence even when there is nothing left to write (the run already ended):
    /// an old owner is refused the same way on both.
    @Test func failRunChecksItsFenceEvenForAnEndedRun() throws {
        let results = try Self.onBothWithARun { store, id, part throws in
            let old = try store.acquirePartitions([part], coordinator: "old", leaseSeconds: 30)
            try store.releasePartitions(old, coordinator: "old")
            let new = try store.acquirePartitions([part], coordinator: "new", leaseSeconds: 30)
            store.fence = PartitionFence(coordinator: "new", count: 64, epochs: new)
            try store.failRun(id, error: "ended by its owner")
            store.fence = PartitionFence(coordinator: "old", count: 64, epochs: old)
            var seen: [String] = []
            do {
                try store.failRun(id, error: "old owner")
                seen.append("old owner's failRun went through")
            } catch { seen.append("old owner's failRun: \(StoreFailure(error))") }
            store.fence = nil
            let state = try #require(try store.loadRun(id))
            seen.append("\(state.status) \(state.error ?? "-")")
            return seen
        }
        #expect(results[0] == results[1])
        #expect(results[1] == ["old owner's failRun: reconnect", "failed ended by its owner"], "\(results[1])")
    }

    /// `baton.partition_of` in SQL and `RunPartition.of` agree, for random ids and every count.
    @Test func sqlAndSwiftAgreeOnARunsPartition() throws {
        let sql = try PGConnection(url: ContractBackend.databaseURL)
        defer { sql.close() }
        _ = try ContractBackend.postgres()  // migrated
        let ids =
            (0..<200).map { _ in UUID().uuidString.lowercased() } + ["ffffffff-ffff-4fff-bfff-ffffffffffff", "00000000-0000-4000-8000-000000000000"]
        for count in [1, 7, 64, 1024] {
            let r = try sql.query(
                "select baton.partition_of(id::uuid, $2::int) as p from unnest($1::text[]) with ordinality as t(id, n) order by n",
                [PGArray.literal(ids), String(count)])
            let fromSQL = (0..<r.rowCount).map { r.int($0, "p") ?? -1 }
            #expect(fromSQL == ids.map { RunPartition.of($0, count: count) }, "count \(count)")
        }
    }
}
