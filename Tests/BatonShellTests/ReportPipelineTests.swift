import BatonAMQP
import Testing

@testable import BatonWorker

@Suite("ReportPipeline: reports from the moment they are taken until the broker confirms them")
struct ReportPipelineTests {
    static func report(_ tag: UInt64?) -> OutgoingReport {
        OutgoingReport(body: Array("r\(tag ?? 0)".utf8), ack: tag.map { DeliveryAck(generation: 1, receipt: BrokerReceipt(generation: 1, tag: $0)) })
    }

    /// Publishes the next taken report under `sequence` and returns its tag.
    static func publishNext(_ pipeline: inout ReportPipeline, sequence: UInt64) -> BrokerReceipt? {
        let tag = pipeline.next?.ack?.receipt
        pipeline.published(sequence: sequence)
        return tag
    }

    @Test func confirmsReleaseReportsInOrderAndSkipHeartbeats() {
        var pipeline = ReportPipeline(window: 10)
        pipeline.taken([Self.report(7), Self.report(8)])
        #expect(Self.publishNext(&pipeline, sequence: 1) == BrokerReceipt(generation: 1, tag: 7))
        pipeline.heartbeatPublished(sequence: 2)
        #expect(Self.publishNext(&pipeline, sequence: 3) == BrokerReceipt(generation: 1, tag: 8))
        #expect(pipeline.next == nil)
        #expect(pipeline.confirmed(through: 0).isEmpty)
        #expect(pipeline.confirmed(through: 2).map(\.ack?.receipt) == WorkerMailboxTests.receipts([7]))
        #expect(!pipeline.isEmpty)
        #expect(pipeline.confirmed(through: 3).map(\.ack?.receipt) == WorkerMailboxTests.receipts([8]))
        #expect(pipeline.isEmpty)
    }

    @Test func theWindowBoundsWhatIsTakenAndInFlight() {
        var pipeline = ReportPipeline(window: 3)
        #expect(pipeline.room == 3)
        pipeline.taken([Self.report(1), Self.report(2)])
        #expect(pipeline.room == 1, "taken reports count before they are published")
        pipeline.published(sequence: 1)
        pipeline.published(sequence: 2)
        #expect(!pipeline.isFull)
        pipeline.taken([Self.report(3)])
        pipeline.published(sequence: 3)
        #expect(pipeline.isFull)
        #expect(pipeline.room == 0)
        _ = pipeline.confirmed(through: 1)
        #expect(pipeline.room == 1)
    }

    @Test func aFailedConnectionHandsBackEveryUnconfirmedReportOldestFirst() {
        var pipeline = ReportPipeline(window: 10)
        pipeline.taken([Self.report(1), Self.report(2)])
        pipeline.published(sequence: 1)
        pipeline.published(sequence: 2)
        pipeline.heartbeatPublished(sequence: 3)
        pipeline.taken([Self.report(3)])
        pipeline.published(sequence: 4)
        _ = pipeline.confirmed(through: 1)
        #expect(pipeline.takeUnconfirmed().map(\.ack?.receipt) == WorkerMailboxTests.receipts([2, 3]))
        #expect(pipeline.isEmpty)
        #expect(pipeline.room == 10)
    }

    /// The defect this pipeline was changed for: a publish failing partway through a batch lost the
    /// reports after it, which were taken from the mailbox but held by no one.
    @Test func aPublishFailingPartwayHandsBackTheReportsNotPublishedToo() {
        var pipeline = ReportPipeline(window: 10)
        pipeline.taken([Self.report(1), Self.report(2)])
        pipeline.published(sequence: 1)
        pipeline.published(sequence: 2)
        _ = pipeline.confirmed(through: 1)
        pipeline.taken([Self.report(3), Self.report(4), Self.report(5)])
        pipeline.published(sequence: 3)
        // The publish of report 4 fails.
        #expect(pipeline.next?.ack?.receipt == BrokerReceipt(generation: 1, tag: 4))
        #expect(pipeline.takeUnconfirmed().map(\.ack?.receipt) == WorkerMailboxTests.receipts([2, 3, 4, 5]))
        #expect(pipeline.isEmpty)
        #expect(pipeline.next == nil)
    }
}
