import Baton
import BatonAMQP
import Foundation
import Testing

@testable import BatonWorker

@Suite("PublisherStateMachine: the worker publisher's decisions")
struct PublisherStateMachineTests {
    static let start = Date(timeIntervalSince1970: 1_000_000)
    static func report(_ tag: UInt64) -> OutgoingReport { ReportPipelineTests.report(tag) }
    static func body(_ tag: UInt64) -> [UInt8] { report(tag).body }

    /// A machine whose first heartbeat is already out (confirmed), so reports are all there is.
    static func warmed(window: Int = 10, interval: Double = 5) -> (PublisherStateMachine, UInt64) {
        var machine = PublisherStateMachine(window: window, heartbeatInterval: interval)
        #expect(machine.next(now: start) == .publishHeartbeat(withSchemas: true))
        machine.published(sequence: 1)
        _ = machine.confirmed(through: 1)
        return (machine, 1)
    }

    @Test func everyTakenReportIsPublishedOldestFirstThenConfirmsAreRead() {
        var (machine, sequence) = Self.warmed()
        machine.taken([Self.report(1), Self.report(2)])
        for tag: UInt64 in [1, 2] {
            #expect(machine.next(now: Self.start) == .publishReport(Self.body(tag)))
            sequence += 1
            machine.published(sequence: sequence)
        }
        #expect(machine.next(now: Self.start) == .readConfirms(wakeOnReports: true))
        #expect(!machine.isSettled)
        #expect(machine.confirmed(through: 2).map(\.ack?.receipt) == WorkerMailboxTests.receipts([1]))
        #expect(machine.confirmed(through: 3).map(\.ack?.receipt) == WorkerMailboxTests.receipts([2]))
        #expect(machine.isSettled)
    }

    /// The defect: reports taken in one batch after a publish that failed were lost, so their
    /// tasks were never acked and their nodes stayed `running` for ever.
    @Test func aPublishFailingPartwayThroughABatchLosesNoReport() {
        var (machine, _) = Self.warmed()
        machine.taken([Self.report(1), Self.report(2), Self.report(3), Self.report(4)])
        #expect(machine.next(now: Self.start) == .publishReport(Self.body(1)))
        machine.published(sequence: 2)
        #expect(machine.next(now: Self.start) == .publishReport(Self.body(2)))
        // That publish throws: the thread reports the connection lost and puts back what it is given.
        #expect(machine.connectionLost().map(\.ack?.receipt) == WorkerMailboxTests.receipts([1, 2, 3, 4]))
        #expect(machine.isSettled)
        #expect(machine.room == 10)
        // On the next connection, taken again, they go out again in order.
        machine.taken([Self.report(1), Self.report(2), Self.report(3), Self.report(4)])
        #expect(machine.next(now: Self.start) == .publishReport(Self.body(1)))
    }

    @Test func aLostConnectionHandsBackOnlyWhatWasNotConfirmed() {
        var (machine, _) = Self.warmed()
        machine.taken([Self.report(1), Self.report(2), Self.report(3)])
        for sequence: UInt64 in 2...4 {
            _ = machine.next(now: Self.start)
            machine.published(sequence: sequence)
        }
        #expect(machine.confirmed(through: 2).map(\.ack?.receipt) == WorkerMailboxTests.receipts([1]))
        #expect(machine.connectionLost().map(\.ack?.receipt) == WorkerMailboxTests.receipts([2, 3]))
        #expect(machine.isSettled)
    }

    @Test func heartbeatsGoOutEveryIntervalOnTheClockGivenWithSchemasInTheFirstAndEveryTwelfth() {
        var machine = PublisherStateMachine(window: 10, heartbeatInterval: 5)
        var sequence: UInt64 = 0
        var withSchemas: [Bool] = []
        for beat in 0..<(WorkerHeartbeat.schemasEvery + 1) {
            let now = Self.start.addingTimeInterval(Double(beat) * 5)
            guard case let .publishHeartbeat(schemas) = machine.next(now: now) else {
                Issue.record("no heartbeat due at beat \(beat)")
                return
            }
            withSchemas.append(schemas)
            sequence += 1
            machine.published(sequence: sequence)
            #expect(machine.next(now: now.addingTimeInterval(4.9)) == .readConfirms(wakeOnReports: true), "not due again yet")
            #expect(machine.confirmed(through: sequence).isEmpty, "a heartbeat releases no report")
        }
        #expect(withSchemas == [true] + Array(repeating: false, count: WorkerHeartbeat.schemasEvery - 1) + [true])
        #expect(machine.isSettled)
    }

    @Test func reportsGoOutBeforeADueHeartbeat() {
        var machine = PublisherStateMachine(window: 10, heartbeatInterval: 5)
        machine.taken([Self.report(1)])
        #expect(machine.next(now: Self.start) == .publishReport(Self.body(1)))
        machine.published(sequence: 1)
        #expect(machine.next(now: Self.start) == .publishHeartbeat(withSchemas: true))
        machine.published(sequence: 2)
        #expect(machine.next(now: Self.start) == .readConfirms(wakeOnReports: true))
    }

    @Test func aHeartbeatWhosePublishFailedIsAskedForAgainOnTheNextConnection() {
        var (machine, _) = Self.warmed()
        let due = Self.start.addingTimeInterval(5)
        #expect(machine.next(now: due) == .publishHeartbeat(withSchemas: false))
        #expect(machine.connectionLost().isEmpty)
        #expect(machine.next(now: due) == .publishHeartbeat(withSchemas: false))
        machine.published(sequence: 1)
        #expect(machine.next(now: due) == .readConfirms(wakeOnReports: true))
    }

    @Test func aFullWindowTakesNothingMoreAndWaitsForConfirmsOnly() {
        var (machine, _) = Self.warmed(window: 2)
        machine.taken([Self.report(1), Self.report(2)])
        #expect(machine.room == 0)
        _ = machine.next(now: Self.start)
        machine.published(sequence: 2)
        _ = machine.next(now: Self.start)
        machine.published(sequence: 3)
        #expect(machine.next(now: Self.start) == .readConfirms(wakeOnReports: false))
        _ = machine.confirmed(through: 2)
        #expect(machine.room == 1)
        #expect(machine.next(now: Self.start) == .readConfirms(wakeOnReports: true))
    }
}
