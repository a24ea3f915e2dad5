import Testing

@testable import BatonWorker

@Suite("SlotQueue: the worker's slots and the tasks waiting for one")
struct SlotQueueTests {
    @Test func tasksStartWhileSlotsAreFreeThenWait() {
        var queue = SlotQueue<Int>(slots: 2)
        #expect(queue.arrived(1) == 1)
        #expect(queue.arrived(2) == 2)
        #expect(queue.arrived(3) == nil)
        #expect(queue.arrived(4) == nil)
        #expect(queue.busy == 2)
        #expect(queue.waiting == [3, 4])
    }

    @Test("a freed slot goes to the highest priority waiting, the oldest of those first (quorum queues' bands meet here)")
    func aFreedSlotGoesToTheHighestPriority() {
        var queue = SlotQueue<(name: String, priority: Int)>(slots: 1) { $0.priority }
        _ = queue.arrived(("running", 0))
        for task in [("low-1", 0), ("mid-1", 5), ("high-1", 9), ("mid-2", 5), ("high-2", 9), ("low-2", 0)] { _ = queue.arrived(task) }
        var order: [String] = []
        while let next = queue.slotFreed() { order.append(next.name) }
        #expect(order == ["high-1", "high-2", "mid-1", "mid-2", "low-1", "low-2"])
    }

    @Test func aFreedSlotGoesToTheOldestWaitingTaskThenBecomesFree() {
        var queue = SlotQueue<Int>(slots: 1)
        _ = queue.arrived(1)
        _ = queue.arrived(2)
        _ = queue.arrived(3)
        #expect(queue.slotFreed() == 2)
        #expect(queue.busy == 1)
        #expect(queue.slotFreed() == 3)
        #expect(queue.slotFreed() == nil)
        #expect(queue.busy == 0)
        #expect(queue.arrived(4) == 4)
        // A spurious extra release never makes the count negative.
        _ = queue.slotFreed()
        #expect(queue.slotFreed() == nil)
        #expect(queue.busy == 0)
    }

    @Test func waitingTasksCanBeTakenOutWithoutTouchingTheSlots() {
        var queue = SlotQueue<Int>(slots: 1)
        _ = queue.arrived(1)
        for n in 2...5 { _ = queue.arrived(n) }
        #expect(queue.removeWaiting { $0 % 2 == 0 } == [2, 4])
        #expect(queue.waiting == [3, 5])
        #expect(queue.busy == 1)
        #expect(queue.removeWaiting { _ in true } == [3, 5])
        #expect(queue.slotFreed() == nil)
    }

    @Test func atLeastOneSlot() {
        var queue = SlotQueue<Int>(slots: 0)
        #expect(queue.slots == 1)
        #expect(queue.arrived(1) == 1)
        #expect(queue.arrived(2) == nil)
    }
}
