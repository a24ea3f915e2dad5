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

    /// A dropped session loses leadership and its notifications; every later call fails with a connection error.
    @Test func aDroppedSessionReleasesLeadership() throws {
        let database = MemoryStore()
        let leader = try database.connect()
        let standby = try database.connect()
        #expect(try leader.tryLeadership())
        #expect(try !standby.tryLeadership())
        try leader.listenForWork()
        _ = database.submit(Self.graph)
        leader.dropConnection()
        let error = #expect(throws: PostgresError.self) { try leader.notifications(timeout: 0) }
        #expect(error.map(StoreFailure.init) == .reconnect)
        #expect(database.leaderConnection == nil)
        #expect(try standby.tryLeadership())
        #expect(database.leaderConnection == standby.id)
        database.dropConnections()
        #expect(!standby.isOpen)
        #expect(database.leaderConnection == nil)
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
        #expect(database.confirmedThrough == first)
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
}
