import Baton
import BatonStore
import Foundation
import Testing

@testable import BatonSimulation

/// The simulator's checks catch what they are for (a check that cannot fail proves nothing).
@Suite("InvariantChecker")
struct InvariantCheckerTests {
    static func submitted(_ name: String) throws -> (MemoryStore, MemoryStoreConnection, [InvariantChecker.Submitted]) {
        let store = MemoryStore()
        let graph = SimulationGraph.catalog.first { $0.name == name }!
        let id = store.submit(try GraphDecoder().decode(graph.document))
        return (store, try store.connect(), [.init(runID: id, graph: graph)])
    }

    static func apply(_ connection: MemoryStoreConnection, _ runID: String, _ commands: [SchedulerCommand]) throws {
        _ = try connection.apply([(runID, commands)], heartbeats: [], handledRequests: [], confirmedBatch: nil, holds: [], now: Date())
    }

    @Test func aBatchSentAgainUnchangedWithoutEndIsCaught() throws {
        let (store, connection, runs) = try Self.submitted("chain")
        var checker = InvariantChecker()
        store.maxStatementBytes = 1_000
        let big: SchedulerCommand = .node(NodeChange(key: "a", status: .queued, attempt: 1, input: .string(String(repeating: "x", count: 2_000))))
        for _ in 0..<InvariantChecker.mostFailuresOfOneBatch {
            #expect(throws: (any Error).self) { try Self.apply(connection, runs[0].runID, [big]) }
        }
        checker.check(store: store, runs: runs)
        #expect(checker.violations.isEmpty, "a few failures of one batch are retries")
        #expect(throws: (any Error).self) { try Self.apply(connection, runs[0].runID, [big]) }
        checker.check(store: store, runs: runs)
        #expect(checker.violations.first?.contains("sent again without end instead of split") == true, "\(checker.violations)")
    }

    @Test func aNodeThatEndsAndChangesAgainIsCaught() throws {
        let (store, connection, runs) = try Self.submitted("chain")
        var checker = InvariantChecker()
        try Self.apply(connection, runs[0].runID, [.node(NodeChange(key: "a", status: .succeeded, attempt: 1, output: ["v": 1]))])
        checker.check(store: store, runs: runs)
        #expect(checker.violations.isEmpty)
        try Self.apply(connection, runs[0].runID, [.node(NodeChange(key: "a", status: .queued, attempt: 2, input: [:]))])
        checker.check(store: store, runs: runs)
        #expect(checker.violations.first?.contains("ended succeeded, then became queued again") == true, "\(checker.violations)")
    }

    @Test func twoHoldersOfAMutexAreCaught() throws {
        let (store, connection, runs) = try Self.submitted("mutex")
        var checker = InvariantChecker()
        try Self.apply(connection, runs[0].runID, [.node(NodeChange(key: "m1", status: .running, attempt: 1, worker: "w"))])
        checker.check(store: store, runs: runs)
        #expect(checker.violations.isEmpty)
        try Self.apply(connection, runs[0].runID, [.node(NodeChange(key: "m2", status: .queued, attempt: 1, input: [:]))])
        checker.check(store: store, runs: runs)
        #expect(checker.violations.first?.contains("2 nodes hold 'disk' at once (limit 1)") == true, "\(checker.violations)")
    }

    @Test func aResultAckedBeforeItIsRecordedIsCaught() throws {
        let (store, connection, runs) = try Self.submitted("chain")
        let id = runs[0].runID
        try Self.apply(connection, id, [.runStatus(.running, error: nil), .node(NodeChange(key: "a", status: .queued, attempt: 1, input: [:]))])
        let result = ReportMessage.result(
            runID: id, AttemptResult<EncodedJSON>(key: "a", attempt: 1, outcome: .succeeded(EncodedJSON(["v": 1])), worker: "w"))
        var checker = InvariantChecker()
        checker.acked(report: result.encoded(), store: store)
        #expect(checker.violations.first?.contains("its result was acked while the node is still queued") == true, "\(checker.violations)")
        var after = InvariantChecker()
        try Self.apply(connection, id, [.node(NodeChange(key: "a", status: .succeeded, attempt: 1, output: ["v": 1]))])
        after.acked(report: result.encoded(), store: store)
        #expect(after.violations.isEmpty)
    }

    @Test func aRunThatDoesNotEndOrLosesAnOutputIsCaught() throws {
        let (store, connection, runs) = try Self.submitted("chain")
        var checker = InvariantChecker()
        checker.finish(store: store, runs: runs)
        #expect(checker.violations.first?.contains("did not end") == true, "\(checker.violations)")
        try Self.apply(
            connection, runs[0].runID,
            [.node(NodeChange(key: "c", status: .succeeded, attempt: 1, output: ["sum": 4])), .runStatus(.succeeded, error: nil)])
        var wrong = InvariantChecker()
        wrong.finish(store: store, runs: runs)
        #expect(wrong.violations.first?.contains("node c: output {\"sum\":4}, expected {\"sum\":3}") == true, "\(wrong.violations)")
    }

    static func message(id: Int, publisher: String, exchange: String, routingKey: String, body: [UInt8]) -> MemoryMessage {
        MemoryMessage(
            id: id, publisher: publisher, exchange: exchange, routingKey: routingKey, body: body, persistent: true, priority: nil,
            deliveries: nil, queuedAt: nil, redelivered: false, deathQueue: nil)
    }

    @Test func aTaskAckedBeforeItsResultIsConfirmedIsCaught() throws {
        let (store, connection, runs) = try Self.submitted("chain")
        let id = runs[0].runID
        try Self.apply(connection, id, [.runStatus(.running, error: nil), .node(NodeChange(key: "a", status: .queued, attempt: 1, input: [:]))])
        let task = TaskDispatch(runID: id, key: "a", attempt: 1, procedure: "baton.echo", input: [:], pool: "default", priority: 0)
        let delivered = Self.message(
            id: 1, publisher: "coordinator-0.1", exchange: "baton.tasks", routingKey: "default.baton.echo", body: task.encoded())
        var early = InvariantChecker()
        early.acked(task: delivered, store: store)
        #expect(early.violations.first?.contains("a worker acked its task before its result") == true, "\(early.violations)")

        let result = ReportMessage.result(
            runID: id, AttemptResult<EncodedJSON>(key: "a", attempt: 1, outcome: .succeeded(EncodedJSON(["v": 1])), worker: "w"))
        var confirmed = InvariantChecker()
        confirmed.confirmed(Self.message(id: 2, publisher: "worker-0.1-reports", exchange: "", routingKey: "baton.results", body: result.encoded()))
        confirmed.acked(task: delivered, store: store)
        #expect(confirmed.violations.isEmpty, "\(confirmed.violations)")

        var republished = InvariantChecker()
        republished.confirmed(
            Self.message(id: 3, publisher: "worker-0.1-tasks", exchange: "baton.tasks", routingKey: "default.baton.echo", body: task.encoded()))
        republished.acked(task: delivered, store: store)
        #expect(republished.violations.isEmpty, "a confirmed copy published again stands for the one acked: \(republished.violations)")

        var superseded = InvariantChecker()
        try Self.apply(connection, id, [.node(NodeChange(key: "a", status: .queued, attempt: 2, input: [:]))])
        superseded.acked(task: delivered, store: store)
        #expect(superseded.violations.isEmpty, "a copy of an attempt the store has moved past is dropped: \(superseded.violations)")
    }
}
