import Testing

@testable import BatonAMQP
@testable import BatonAMQPClient

@Suite struct ConfirmTrackerTests {
    private func published(_ count: Int) -> ConfirmTracker {
        var tracker = ConfirmTracker()
        for expected in 1...UInt64(count) { #expect(tracker.recordPublish() == expected) }
        return tracker
    }

    @Test func multipleAckSettlesEverythingUpToTheTag() {
        var tracker = published(1000)
        tracker.settle(tag: 600, multiple: true, ack: true)
        #expect(!tracker.isComplete && tracker.outstanding == 400)
        tracker.settle(tag: 1000, multiple: true, ack: true)
        #expect(tracker.isComplete && tracker.outstanding == 0)
    }

    @Test func singleAcksInAnyOrder() {
        var tracker = published(4)
        for tag: UInt64 in [3, 1, 4] { tracker.settle(tag: tag, multiple: false, ack: true) }
        #expect(!tracker.isComplete && tracker.outstanding == 1)
        tracker.settle(tag: 2, multiple: false, ack: true)
        #expect(tracker.isComplete)
    }

    @Test func mixedSinglesAndMultiple() {
        var tracker = published(10)
        tracker.settle(tag: 7, multiple: false, ack: true)
        tracker.settle(tag: 9, multiple: false, ack: true)
        tracker.settle(tag: 8, multiple: true, ack: true)
        #expect(tracker.outstanding == 1)
        tracker.settle(tag: 9, multiple: false, ack: true)  // duplicate, ignored
        tracker.settle(tag: 10, multiple: false, ack: true)
        #expect(tracker.isComplete)
    }

    @Test func nacksAreCollected() {
        var tracker = published(6)
        tracker.settle(tag: 2, multiple: false, ack: true)
        tracker.settle(tag: 4, multiple: true, ack: false)
        tracker.settle(tag: 6, multiple: false, ack: false)
        tracker.settle(tag: 5, multiple: false, ack: true)
        #expect(tracker.isComplete)
        #expect(tracker.takeNacks() == [1, 3, 4, 6])
        #expect(tracker.takeNacks() == [])
    }
}
