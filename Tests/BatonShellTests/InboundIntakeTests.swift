import Baton
import BatonAMQP
import Foundation
import Testing

@testable import BatonCoordinator

/// Where the coordinator sends each inbound message and what it feeds its runs, decided with no broker
/// and no database.
@Suite("the coordinator's intake of inbound messages")
struct InboundIntakeTests {
    static let runID = "0b6a2e5c-1f1e-4a5e-9d3e-2c1b0a9f8e7d"
    static let intake = InboundIntake(maxOutputBytes: 1_000, partitionCount: 8, reportCheck: ReportCheck())
    static let receipt = BrokerReceipt(generation: 1, tag: 42)

    static func started(_ runID: String = runID, token: String? = nil) -> [UInt8] {
        var report = ReportMessage.started(runID: runID, key: "a", attempt: 1, worker: "w1", at: Date(timeIntervalSince1970: 1_000))
        report.attemptToken = token
        return report.encoded()
    }

    static func task(_ runID: String = runID, token: String? = nil) -> [UInt8] {
        var task = TaskDispatch(runID: runID, key: "a", attempt: 1, procedure: "p", input: [:], pool: "default", priority: 0)
        task.attemptToken = token
        return task.encoded()
    }

    static func run(token: AttemptToken?) throws -> RunState {
        let graph = try GraphDecoder().decode(try JSONParser.parse(#"{"nodes": {"a": {"procedure": "p"}}}"#))
        var node = NodeState(status: .queued, attempt: 1, input: [:])
        node.attemptToken = token
        return RunState(runID: runID, graph: graph, status: .running, nodes: ["a": node])
    }

    @Test func aReportOfAHeldRunGoesToItsRunAndIsAckedWithTheBatch() throws {
        let (route, withBatch) = Self.intake.route(.report(body: Self.started(), receipt: Self.receipt)) { _ in true }
        guard case let .report(report, bytes) = route else { throw Failure("routed \(route)") }
        #expect(report.runID == Self.runID && bytes == Self.started().count)
        #expect(withBatch == Self.receipt)
    }

    @Test func aReportOfARunHeldElsewhereIsForwardedToItsPartitionAndAckedWithTheBatch() throws {
        let (route, withBatch) = Self.intake.route(.report(body: Self.started(), receipt: Self.receipt)) { _ in false }
        guard case let .forward(body, partition, deadLetter, ackOnConfirm) = route else { throw Failure("routed \(route)") }
        #expect(body == Self.started() && partition == RunPartition.of(Self.runID, count: 8))
        #expect(deadLetter == nil && ackOnConfirm == nil && withBatch == Self.receipt)
    }

    @Test func anUnreadableReportIsDeadLetteredAtOnceAndNotAckedWithTheBatch() throws {
        let (route, withBatch) = Self.intake.route(.report(body: Array("not a report".utf8), receipt: Self.receipt)) { _ in true }
        guard case let .reject(receipt, reason) = route else { throw Failure("routed \(route)") }
        #expect(receipt == Self.receipt && reason.hasPrefix("dead-lettering a report: "))
        #expect(withBatch == nil)
    }

    @Test func aReportFromBeforePartitionsIsForwardedThenAckedOnConfirmUnlessItsRunIdIsNoUUID() throws {
        let (route, _) = Self.intake.route(.unrouted(body: Self.started(), deadLetter: nil, receipt: Self.receipt)) { _ in true }
        guard case let .forward(_, _, nil, ackOnConfirm) = route else { throw Failure("routed \(route)") }
        #expect(ackOnConfirm == Self.receipt)
        let (bad, _) = Self.intake.route(.unrouted(body: Self.started("run-1"), deadLetter: nil, receipt: Self.receipt)) { _ in true }
        guard case let .reject(_, reason) = bad else { throw Failure("routed \(bad)") }
        #expect(reason == "dead-lettering a report: its run id 'run-1' is not a UUID")
    }

    @Test func aDeadLetterOfTheSharedQueueGoesToItsRunsOwnerAndIsAckedOnConfirm() throws {
        let origin = DeadLetterOrigin(deliveries: 5, queue: "tasks.default")
        let (route, withBatch) = Self.intake.route(.unrouted(body: Self.task(), deadLetter: origin, receipt: Self.receipt)) { _ in true }
        guard case let .forward(_, partition, deadLetter, ackOnConfirm) = route else { throw Failure("routed \(route)") }
        #expect(partition == RunPartition.of(Self.runID, count: 8) && deadLetter == origin && ackOnConfirm == Self.receipt && withBatch == nil)
        for body in [Self.task("run-1"), Array("junk".utf8)] {
            let (dropped, _) = Self.intake.route(.unrouted(body: body, deadLetter: origin, receipt: Self.receipt)) { _ in true }
            guard case let .drop(ack, reason) = dropped else { throw Failure("routed \(dropped)") }
            #expect(ack == Self.receipt && reason.hasSuffix("; dropped"))
        }
    }

    @Test func aDeadLetterOfAPartitionQueueThatIsNoTaskIsDroppedWithTheBatch() throws {
        let message = CoordinatorInbound.deadLetter(body: Array("junk".utf8), deliveries: 3, queue: "q", receipt: Self.receipt)
        let (route, withBatch) = Self.intake.route(message) { _ in true }
        guard case let .drop(ack, reason) = route else { throw Failure("routed \(route)") }
        #expect(ack == nil && withBatch == Self.receipt && reason.hasPrefix("dead letter from q that is not a task (4 bytes; "))
    }

    @Test func aReportWithoutItsAttemptsTokenIsRefusedAndOneWithItIsFedWithItsWorker() throws {
        let token = AttemptToken(high: 1, low: 2)
        let run = try Self.run(token: token)
        let bare = try ReportMessage(decoding: Self.started())
        guard case let .refused(refusal, what) = Self.intake.judge(bare, in: run) else { throw Failure("not refused") }
        #expect(refusal == .missingToken && what == "started report of run \(Self.runID) node a attempt 1")
        let tokened = try ReportMessage(decoding: Self.started(token: token.text))
        guard case let .feed(_, result, worker) = Self.intake.judge(tokened, in: run) else { throw Failure("refused") }
        #expect(result == false && worker == "w1")
    }

    @Test func aDeadLetterWithItsTokenFailsItsNodeAndOneWithAnotherIsRefused() throws {
        let token = AttemptToken(high: 1, low: 2)
        let run = try Self.run(token: token)
        let good = try TaskDispatch(decoding: Self.task(token: token.text))
        guard case let .feed(event, _, nil) = Self.intake.judgeDeadLetter(good, deliveries: 5, in: run),
            case let .deadLettered(key, attempt, reason) = event
        else { throw Failure("not fed as a dead letter") }
        #expect(key == "a" && attempt == 1 && reason.hasPrefix("the task was dead-lettered after 5 deliveries"))
        let forged = try TaskDispatch(decoding: Self.task(token: AttemptToken(high: 9, low: 9).text))
        guard case .refused(.wrongToken, _) = Self.intake.judgeDeadLetter(forged, deliveries: 5, in: run) else { throw Failure("not refused") }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
