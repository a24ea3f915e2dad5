import BatonAMQP
import Testing

@testable import BatonCoordinator

@Suite("ConfirmBacklog: result acks wait for the confirms of the tasks published before them")
struct ConfirmBacklogTests {
    @Test func nothingIsReleasedBeforeItsTasksAreConfirmed() {
        var backlog = ConfirmBacklog()
        backlog.committed(publishedThrough: 10, resultTag: 5, number: 1, published: true)
        #expect(backlog.settled(through: 9) == .init(ackThrough: nil, confirmedBatch: nil))
        #expect(!backlog.isEmpty)
        #expect(backlog.settled(through: 10) == .init(ackThrough: 5, confirmedBatch: 1))
        #expect(backlog.isEmpty)
    }

    @Test func batchesAreReleasedInOrderEvenWhenALaterOneHasNothingToConfirm() {
        var backlog = ConfirmBacklog()
        backlog.committed(publishedThrough: 10, resultTag: 5, number: 1, published: true)
        // Published nothing, but its results' ack is cumulative: it must not pass the batch before it.
        backlog.committed(publishedThrough: 10, resultTag: 9, number: 2, published: false)
        backlog.committed(publishedThrough: 20, resultTag: 14, number: 3, published: true)
        #expect(backlog.settled(through: 3) == .init(ackThrough: nil, confirmedBatch: nil))
        #expect(
            backlog.settled(through: 15) == .init(ackThrough: 9, confirmedBatch: 1), "a batch that published nothing is not recorded as confirmed")
        #expect(backlog.entries.count == 1)
        #expect(backlog.settled(through: 25) == .init(ackThrough: 14, confirmedBatch: 3))
    }

    @Test func aBatchWithoutResultsStillRecordsItsConfirmedTasks() {
        var backlog = ConfirmBacklog()
        backlog.committed(publishedThrough: 4, resultTag: nil, number: 7, published: true)
        #expect(backlog.settled(through: 4) == .init(ackThrough: nil, confirmedBatch: 7))
    }

    /// The confirmed batch number is recorded only for the partitions whose tasks the released
    /// batches published: one row per partition touched, not one per partition held.
    @Test func theReleaseNamesThePartitionsItsBatchesPublishedFor() {
        var backlog = ConfirmBacklog()
        backlog.committed(publishedThrough: 3, resultTag: 1, number: 1, published: true, partitions: [4, 9])
        backlog.committed(publishedThrough: 3, resultTag: 2, number: 2, published: false, partitions: [])
        backlog.committed(publishedThrough: 5, resultTag: 3, number: 3, published: true, partitions: [9, 11])
        backlog.committed(publishedThrough: 8, resultTag: 4, number: 4, published: true, partitions: [60])
        #expect(backlog.settled(through: 5) == .init(ackThrough: 3, confirmedBatch: 3, confirmedPartitions: [4, 9, 11]))
        #expect(backlog.settled(through: 8) == .init(ackThrough: 4, confirmedBatch: 4, confirmedPartitions: [60]))
    }

    @Test func fullAfterTheLimitAndEmptyAfterAReset() {
        var backlog = ConfirmBacklog(limit: 2)
        backlog.committed(publishedThrough: 1, resultTag: 1, number: 1, published: true)
        #expect(!backlog.isFull)
        backlog.committed(publishedThrough: 2, resultTag: 2, number: 2, published: true)
        #expect(backlog.isFull)
        backlog.reset()
        #expect(backlog.isEmpty)
        #expect(backlog.settled(through: 2) == .init(ackThrough: nil, confirmedBatch: nil))
    }
}

/// Receipts of one connection, written as their delivery tags.
extension BrokerReceipt: ExpressibleByIntegerLiteral {
    public init(integerLiteral tag: UInt64) { self.init(generation: 1, tag: tag) }
}
