import Baton
import BatonPostgres
import BatonSimulation
import BatonStore
import Foundation
import Testing

/// `MemoryStore`'s own behaviour for the simulator: injected faults, lost sessions, determinism.
@Suite("MemoryStore faults and sessions")
struct MemoryStoreFaultTests {
    static let at = Date(timeIntervalSince1970: 1_800_000_000)
    static let graph = try! GraphDecoder().decode(try! JSONParser.parse(#"{"nodes": {"a": {"procedure": "p"}, "b": {"procedure": "p"}}}"#))

    static func queued(_ key: String) -> SchedulerCommand { .node(NodeChange(key: key, status: .queued, attempt: 1, input: ["k": .string(key)])) }

    func apply(_ store: MemoryStoreConnection, _ batch: [(runID: String, commands: [SchedulerCommand])]) throws -> Int64? {
        try store.apply(batch, heartbeats: [], handledRequests: [], confirmedBatch: nil, holds: [], now: Self.at)
    }

    /// Each class of failure comes as a `PostgresError` that `StoreFailure` classifies as that class;
    /// the failed apply writes nothing, and the call after it works.
    @Test(arguments: [StoreFailure.retry, .rejectData, .fatal, .reconnect])
    func anInjectedFailureIsClassifiedAndRollsBack(_ failure: StoreFailure) throws {
        let database = MemoryStore()
        let store = try database.connect()
        let id = database.submit(Self.graph)
        database.failNext(.apply, with: failure)
        let error = #expect(throws: PostgresError.self) { try apply(store, [(id, [Self.queued("a")])]) }
        #expect(error.map(StoreFailure.init) == failure)
        #expect(database.nodes(ofRun: id).map(\.status) == [.pending, .pending])
        #expect(database.events(ofRun: id).map(\.kind) == ["submitted"])
        if failure == .reconnect {
            #expect(!store.isOpen)
            #expect(throws: PostgresError.self) { try store.loadRun(id) }
            return
        }
        #expect(try apply(store, [(id, [Self.queued("a")])]) == nil)
        #expect(database.nodes(ofRun: id).map(\.status) == [.queued, .pending])
    }

    /// A retry-class failure may name any of the SQLSTATEs production retries on.
    @Test(arguments: ["40001", "40P01", "53100", "57014", "55P03"])
    func retryStatesAreRetried(_ state: String) throws {
        let database = MemoryStore()
        let store = try database.connect()
        database.failNext(.activeRunIDs, with: .retry, sqlState: state)
        let error = #expect(throws: PostgresError.self) { try store.activeRunIDs() }
        #expect(error?.sqlState == state)
        #expect(error.map(StoreFailure.init) == .retry)
        #expect(try store.activeRunIDs() == [])
    }

    /// `count` fails that many calls; `afterCommit` writes, then fails (the reply was lost).
    @Test func countsAndLostReplies() throws {
        let database = MemoryStore()
        let store = try database.connect()
        let id = database.submit(Self.graph)
        database.failNext(.loadRun, with: .retry, count: 2)
        #expect(throws: PostgresError.self) { try store.loadRun(id) }
        #expect(throws: PostgresError.self) { try store.loadRun(id) }
        #expect(try store.loadRun(id) != nil)
        database.failNext(.apply, with: .retry, afterCommit: true)
        #expect(throws: PostgresError.self) { try apply(store, [(id, [Self.queued("b")])]) }
        #expect(database.node("b", ofRun: id)?.status == .queued)
    }

    /// A dropped session loses its notifications, and a coordinator that announced on it is gone at
    /// once: its partitions are free before their leases run out. Every later call fails with a connection error.
    @Test func aDroppedSessionFreesItsCoordinatorsPartitions() throws {
        let database = MemoryStore()
        let first = try database.connect()
        let second = try database.connect()
        #expect(try first.announce(CoordinatorAnnouncement(id: "a", host: "h", pid: 1, leaseSeconds: 10)) == ["a"])
        #expect(try first.acquirePartitions([0, 1], coordinator: "a", leaseSeconds: 10).count == 2)
        #expect(try second.acquirePartitions([0], coordinator: "b", leaseSeconds: 10).isEmpty)
        try first.listenForWork()
        _ = database.submit(Self.graph)
        first.dropConnection()
        let error = #expect(throws: PostgresError.self) { try first.notifications(timeout: 0) }
        #expect(error.map(StoreFailure.init) == .reconnect)
        #expect(try second.partitionLeases().prefix(2).allSatisfy(\.isFree))
        #expect(try second.announce(CoordinatorAnnouncement(id: "b", host: "h", pid: 2, leaseSeconds: 10)) == ["b"])
        #expect(try second.acquirePartitions([0], coordinator: "b", leaseSeconds: 10) == [0: 2])
        database.dropConnections()
        #expect(!second.isOpen)
    }

    /// A session cut off from the network (`sever`, the `store-cut` fault) fails every call as a lost
    /// connection, but the database keeps it: its coordinator is not gone, so its partitions stay held
    /// until their lease runs out. When the network heals, the session ends.
    @Test func aSeveredSessionKeepsItsPartitionsUntilTheirLeaseRunsOut() throws {
        var now = Self.at
        let database = MemoryStore(clock: { now })
        let cut = try database.connect()
        let other = try database.connect()
        #expect(try cut.announce(CoordinatorAnnouncement(id: "a", host: "h", pid: 1, leaseSeconds: 10)) == ["a"])
        #expect(try cut.acquirePartitions([0, 1], coordinator: "a", leaseSeconds: 10).count == 2)
        database.sever([cut.id])
        let error = #expect(throws: PostgresError.self) { try cut.renewPartitions([0: 1, 1: 1], coordinator: "a", leaseSeconds: 10) }
        #expect(error.map(StoreFailure.init) == .reconnect)
        #expect(!cut.isOpen)
        cut.close()  // the client gives it up; the database does not hear of it
        #expect(database.openSessions.contains(cut.id))
        #expect(try other.acquirePartitions([0], coordinator: "b", leaseSeconds: 10).isEmpty, "held until the lease runs out")
        now = now.addingTimeInterval(10.5)
        #expect(try other.acquirePartitions([0, 1], coordinator: "b", leaseSeconds: 10) == [0: 2, 1: 2])
        database.heal([cut.id])
        #expect(!database.openSessions.contains(cut.id), "healed, the database learns the session is gone")
        #expect(database.openSessions == [other.id])
    }

    /// A session its client did not use during a cut goes on once it heals, on both sides (nothing was
    /// sent, so nothing broke). Seed 826 found the twin ending it on the database's side only: the client
    /// went on writing on a session the database had ended, so a coordinator cut off again later could
    /// not be cut off (its session was no longer counted as open) and took partitions while cut.
    @Test func aSessionUnusedDuringACutGoesOnOnceHealed() throws {
        let database = MemoryStore()
        let quiet = try database.connect()
        database.sever([quiet.id])
        database.heal([quiet.id])
        #expect(quiet.isOpen)
        #expect(database.openSessions == [quiet.id])
        #expect((try? quiet.partitionLeases()) != nil, "it still answers")
        database.sever([quiet.id])
        #expect(throws: PostgresError.self) { try quiet.partitionCount() }
    }

    /// Dispatching batches get increasing numbers; a queued attempt counts as published once its batch is confirmed.
    @Test func confirmedBatchesMarkQueuedAttemptsPublished() throws {
        let database = MemoryStore()
        let store = try database.connect()
        let id = database.submit(Self.graph)
        var state = try #require(try store.loadRun(id))
        let commands = state.handle(.start, at: Self.at, random: { 0.5 })
        let first = try #require(try apply(store, [(id, commands)]))
        #expect(try store.loadRun(id)?.nodes["a"]?.publishedAttempt == nil)
        #expect(try store.apply([], heartbeats: [], handledRequests: [], confirmedBatch: first, holds: [], now: Self.at) == nil)
        #expect(database.confirmedThrough(partition: RunPartition.of(id, count: RunPartition.standard)) == first)
        #expect(try store.loadRun(id)?.nodes["a"]?.publishedAttempt == 1)
        #expect(database.node("a", ofRun: id)?.dispatchBatch == first)
    }

    /// Two databases given the same operations return the same ids, rows and events.
    @Test func theSameOperationsGiveTheSameResults() throws {
        func play() throws -> [String] {
            let database = MemoryStore()
            let store = try database.connect()
            let ids = [database.submit(Self.graph), database.submit(Self.graph)]
            for id in ids.reversed() {
                var state = try #require(try store.loadRun(id))
                _ = try apply(store, [(id, state.handle(.start, at: Self.at, random: { 0.5 }))])
            }
            try database.requestCancel(runID: ids[1])
            return ids + database.events.map { "\($0.id) \($0.runID) \($0.node ?? "-") \($0.kind)" } + (try store.activeRunIDs())
                + (try store.openRequests()).map { "\($0.id) \($0.runID) \($0.kind)" }
        }
        let first = try play()
        #expect(first == (try play()))
        #expect(first.first == "00000000-0000-4000-8000-000000000001")
        #expect(first.last == "1 00000000-0000-4000-8000-000000000002 cancel")
    }

    /// As `PGConnection` refuses a statement over PostgreSQL's message limit (54000, the data's fault),
    /// the twin refuses one over `maxStatementBytes`; the same batch failing again is counted.
    @Test func aStatementOverTheLimitIsRefusedAsTheDatasFaultAndItsRetriesCounted() throws {
        let database = MemoryStore()
        database.maxStatementBytes = 2_000
        let store = try database.connect()
        let id = database.submit(Self.graph)
        let big: SchedulerCommand = .node(NodeChange(key: "a", status: .queued, attempt: 1, input: .string(String(repeating: "x", count: 3_000))))
        for _ in 0..<3 {
            let error = #expect(throws: PostgresError.self) { try apply(store, [(id, [big])]) }
            #expect(error?.sqlState == "54000")
            #expect(error.map(StoreFailure.init) == .rejectData)
        }
        #expect(database.mostFailuresOfOneBatch == 3)
        #expect(database.nodes(ofRun: id).map(\.status) == [.pending, .pending])
        #expect(try apply(store, [(id, [Self.queued("a")])]) == nil, "a statement within the limit goes in")
        #expect(database.nodes(ofRun: id).map(\.status) == [.queued, .pending])
    }
}
