import BatonAMQP
import Testing

@testable import BatonWorker

@Suite("WorkerMailbox: reports between the procedures and the publisher")
struct WorkerMailboxTests {
    static func receipts(_ tags: [UInt64]) -> [BrokerReceipt] { tags.map { BrokerReceipt(generation: 1, tag: $0) } }

    static func report(_ tag: UInt64) -> OutgoingReport { ReportPipelineTests.report(tag) }

    @Test func reportsPutBackAreTakenAgainFirst() {
        let mailbox = WorkerMailbox()
        for tag: UInt64 in 1...3 { mailbox.post(Self.report(tag)) }
        let taken = mailbox.takeReports(limit: 2)
        mailbox.post(Self.report(4))
        mailbox.putBack(taken)
        #expect(mailbox.takeReports(limit: 10).map(\.ack?.receipt) == Self.receipts([1, 2, 3, 4]))
    }

    /// Reports the publisher still holds keep the worker from counting as idle: putting some back
    /// forgets those only, not every report taken.
    @Test func putBackCountsOnlyTheReportsItReturns() {
        let mailbox = WorkerMailbox()
        for tag: UInt64 in 1...3 { mailbox.post(Self.report(tag)) }
        let taken = mailbox.takeReports(limit: 3)
        mailbox.putBack([taken[2]])
        #expect(mailbox.takeReports(limit: 3).map(\.ack?.receipt) == Self.receipts([3]))
        mailbox.confirmed([taken[2]])
        _ = mailbox.takeAcks()
        #expect(!mailbox.isIdle, "reports 1 and 2 are still unconfirmed")
        #expect(mailbox.hasAcksComing)
        mailbox.confirmed(Array(taken[0...1]))
        #expect(!mailbox.isIdle, "their acks are due")
        #expect(mailbox.takeAcks().map(\.receipt) == Self.receipts([1, 2]))
        #expect(mailbox.isIdle)
    }

    @Test func everyReportTakenEndsConfirmedOrPutBackAndThenTheMailboxIsIdle() {
        let mailbox = WorkerMailbox()
        for tag: UInt64 in 1...4 { mailbox.post(Self.report(tag)) }
        var machine = PublisherStateMachine(window: 10, heartbeatInterval: 3600)
        machine.taken(mailbox.takeReports(limit: machine.room))
        #expect(machine.next(now: .distantPast) == .publishReport(Self.report(1).body))
        machine.published(sequence: 1)
        #expect(machine.next(now: .distantPast) == .publishReport(Self.report(2).body))
        // That publish fails.
        mailbox.putBack(machine.connectionLost())
        #expect(!mailbox.isIdle)
        machine.taken(mailbox.takeReports(limit: machine.room))
        for sequence: UInt64 in 1...4 {
            #expect(machine.next(now: .distantPast) == .publishReport(Self.report(sequence).body))
            machine.published(sequence: sequence)
        }
        mailbox.confirmed(machine.confirmed(through: 4))
        #expect(mailbox.takeAcks().map(\.receipt) == Self.receipts([1, 2, 3, 4]))
        #expect(mailbox.isIdle)
    }

    /// Log and progress reports are refused while the reports not yet confirmed fill the budget;
    /// results are always taken; confirmed reports give their bytes back.
    @Test func logAndProgressAreRefusedBeyondTheBudgetResultsNever() {
        let mailbox = WorkerMailbox(budget: 10)
        let line = OutgoingReport(body: Array("0123".utf8), ack: nil)
        #expect(mailbox.offer(line) && mailbox.offer(line))
        #expect(!mailbox.offer(line), "12 bytes would be over 10")
        mailbox.post(Self.report(1))
        #expect(mailbox.bytes == 10)
        let taken = mailbox.takeReports(limit: 10)
        #expect(taken.count == 3)
        #expect(!mailbox.offer(line), "taken is not yet confirmed")
        mailbox.putBack(taken)
        #expect(mailbox.bytes == 10, "put back: still held")
        mailbox.confirmed(mailbox.takeReports(limit: 10))
        #expect(mailbox.bytes == 0)
        #expect(mailbox.offer(line))
    }
}
