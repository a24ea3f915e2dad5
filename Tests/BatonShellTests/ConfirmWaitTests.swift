import BatonAMQP
import Testing

@testable import BatonCoordinator

/// When and how long the coordinator waits for the broker's confirms (`ConfirmBacklog.mustWait`,
/// `ConfirmWait`), with no services.
struct ConfirmWaitTests {
    @Test func theLoopWaitsOnlyWhenTheBacklogIsFullAndItsOldestBatchUnconfirmed() {
        var backlog = ConfirmBacklog(limit: 2)
        backlog.committed(publishedThrough: 5, resultTag: nil, number: 1, published: true)
        #expect(!backlog.mustWait(confirmedThrough: 0), "not full")
        backlog.committed(publishedThrough: 9, resultTag: nil, number: 2, published: true)
        #expect(backlog.mustWait(confirmedThrough: 4))
        #expect(!backlog.mustWait(confirmedThrough: 5), "the oldest is confirmed: it is released without waiting")
    }

    @Test func theWaitIsSlicedByTheLeaseAndEndsAtTheDeadline() {
        var wait = ConfirmWait(partitionLease: 2, deadline: 30)
        #expect(abs(wait.slice - 0.4) < 1e-9)
        var slices = 1
        while wait.timedOut() { slices += 1 }
        #expect(slices == 75, "30 s in slices of 0.4 s")
        #expect(ConfirmWait(partitionLease: 60, deadline: 30).slice == 1)
        #expect(ConfirmWait(partitionLease: 0.01, deadline: 30).slice == 0.05)
    }
}
