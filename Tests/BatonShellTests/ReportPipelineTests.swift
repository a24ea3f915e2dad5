import Testing

@testable import BatonWorker

@Suite("ReportPipeline: reports in flight until the broker confirms them")
struct ReportPipelineTests {
    static func report(_ tag: UInt64?) -> OutgoingReport {
        OutgoingReport(body: Array("r\(tag ?? 0)".utf8), ack: tag.map { DeliveryAck(generation: 1, deliveryTag: $0) })
    }

    @Test func confirmsReleaseReportsInOrderAndSkipHeartbeats() {
        var pipeline = ReportPipeline(window: 10)
        pipeline.published(Self.report(7), sequence: 1)
        pipeline.published(nil, sequence: 2)  // a heartbeat
        pipeline.published(Self.report(8), sequence: 3)
        #expect(pipeline.confirmed(through: 0).isEmpty)
        #expect(pipeline.confirmed(through: 2).map(\.ack?.deliveryTag) == [7])
        #expect(!pipeline.isEmpty)
        #expect(pipeline.confirmed(through: 3).map(\.ack?.deliveryTag) == [8])
        #expect(pipeline.isEmpty)
    }

    @Test func theWindowBoundsWhatIsInFlight() {
        var pipeline = ReportPipeline(window: 2)
        #expect(pipeline.room == 2)
        pipeline.published(Self.report(1), sequence: 1)
        pipeline.published(Self.report(2), sequence: 2)
        #expect(pipeline.isFull)
        #expect(pipeline.room == 0)
        _ = pipeline.confirmed(through: 1)
        #expect(pipeline.room == 1)
    }

    @Test func aFailedConnectionHandsBackEveryUnconfirmedReportOldestFirst() {
        var pipeline = ReportPipeline(window: 10)
        pipeline.published(Self.report(1), sequence: 1)
        pipeline.published(Self.report(2), sequence: 2)
        pipeline.published(nil, sequence: 3)
        pipeline.published(Self.report(3), sequence: 4)
        _ = pipeline.confirmed(through: 1)
        #expect(pipeline.takeUnconfirmed().map(\.ack?.deliveryTag) == [2, 3])
        #expect(pipeline.isEmpty)
    }
}
