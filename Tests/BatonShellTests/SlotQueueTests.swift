import Testing

@testable import BatonWorker

@Suite("SlotQueue: the worker's slots and the tasks waiting for one")
struct SlotQueueTests {
    @Test func tasksStartWhileSlotsAreFreeThenWait() {
        var queue = SlotQueue<Int>(slots: 2)
        #expect(queue.arrived(1) == [1])
        #expect(queue.arrived(2) == [2])
        #expect(queue.arrived(3) == [])
        #expect(queue.arrived(4) == [])
        #expect(queue.busy == 2)
        #expect(queue.waiting == [3, 4])
    }

    @Test("a freed slot goes to the highest priority waiting, the oldest of those first (quorum queues' bands meet here)")
    func aFreedSlotGoesToTheHighestPriority() {
        var queue = SlotQueue<(name: String, priority: Int)>(slots: 1, priority: { $0.priority })
        var running = queue.arrived(("running", 0))
        for task in [("low-1", 0), ("mid-1", 5), ("high-1", 9), ("mid-2", 5), ("high-2", 9), ("low-2", 0)] { _ = queue.arrived(task) }
        var order: [String] = []
        while let finished = running.first {
            running = queue.slotFreed(finished)
            order += running.map(\.name)
        }
        #expect(order == ["high-1", "high-2", "mid-1", "mid-2", "low-1", "low-2"])
    }

    @Test func aFreedSlotGoesToTheOldestWaitingTaskThenBecomesFree() {
        var queue = SlotQueue<Int>(slots: 1)
        _ = queue.arrived(1)
        _ = queue.arrived(2)
        _ = queue.arrived(3)
        #expect(queue.slotFreed(1) == [2])
        #expect(queue.busy == 1)
        #expect(queue.slotFreed(2) == [3])
        #expect(queue.slotFreed(3) == [])
        #expect(queue.busy == 0)
        #expect(queue.arrived(4) == [4])
        // A spurious extra release never makes the count negative.
        _ = queue.slotFreed(4)
        #expect(queue.slotFreed(4) == [])
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
        #expect(queue.slotFreed(1) == [])
    }

    @Test func atLeastOneSlot() {
        var queue = SlotQueue<Int>(slots: 0)
        #expect(queue.slots == 1)
        #expect(queue.arrived(1) == [1])
        #expect(queue.arrived(2) == [])
    }

    /// Negative numbers are suspects (delivered before to a worker that died).
    static func suspects(slots: Int) -> SlotQueue<Int> { SlotQueue(slots: slots, isSuspect: { $0 < 0 }) }

    @Test("a suspect waits for the running tasks to end, then runs alone; the tasks after it wait with it")
    func aSuspectRunsAlone() {
        var queue = Self.suspects(slots: 3)
        #expect(queue.arrived(1) == [1])
        #expect(queue.arrived(2) == [2])
        #expect(queue.arrived(-3) == [])  // a slot is free, but 1 and 2 run
        #expect(queue.arrived(4) == [])  // behind the suspect, not beside it
        #expect(queue.slotFreed(1) == [])
        #expect(queue.slotFreed(2) == [-3])
        #expect(queue.busy == 1 && queue.suspectRunning)
        #expect(queue.arrived(5) == [])  // nothing starts beside a running suspect
        #expect(queue.slotFreed(-3) == [4, 5])
        #expect(queue.busy == 2 && !queue.suspectRunning)
    }

    @Test("a suspect that arrives at an idle worker starts at once, alone; two suspects run one after the other")
    func suspectsOneAfterTheOther() {
        var queue = Self.suspects(slots: 4)
        #expect(queue.arrived(-1) == [-1])
        #expect(queue.arrived(-2) == [])
        #expect(queue.arrived(3) == [])
        #expect(queue.slotFreed(-1) == [-2])
        #expect(queue.slotFreed(-2) == [3])
    }

    @Test("a suspect of higher priority still waits for running tasks, and is not passed over by lower ones")
    func aSuspectIsNotPassedOver() {
        var queue = SlotQueue<(id: Int, priority: Int)>(slots: 2, priority: { $0.priority }, isSuspect: { $0.id < 0 })
        _ = queue.arrived((1, 0))
        _ = queue.arrived((-2, 9))
        let low = queue.arrived((3, 0))
        #expect(low.isEmpty)  // a slot is free, but the suspect is first in line
        #expect(queue.slotFreed((1, 0)).map(\.id) == [-2])
        #expect(queue.slotFreed((-2, 9)).map(\.id) == [3])
    }
}
