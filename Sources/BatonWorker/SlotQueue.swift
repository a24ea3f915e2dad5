/// A worker's slots and the tasks waiting in the worker for one, as a value.
///
/// The broker sends up to the prefetch count of tasks; those beyond the free slots wait
/// here, so a slot that frees (its procedure returned) starts the next task at once,
/// without waiting for the broker: the highest-priority one, oldest first among equals (tasks
/// of several queues wait here together, as with quorum queues' priority bands).
///
/// A suspect (a task delivered before to a worker that never reported its result: it may be what
/// killed that worker) runs alone: it starts once no other task runs, and nothing starts beside it.
/// So if it kills this worker too, no task ran beside it, and the tasks merely held here were never
/// started (the coordinator sends those out again, `RunState+DeadLetters`). It does no I/O;
/// `TaskConsumer` carries out what it returns.
struct SlotQueue<Item: Sendable>: Sendable {
    let slots: Int
    /// The priority of a task (higher starts first).
    let priority: @Sendable (Item) -> Int
    /// Whether a task is a suspect, to run alone.
    let isSuspect: @Sendable (Item) -> Bool
    /// Slots holding a running task.
    private(set) var busy = 0
    /// Whether the running task is a suspect (then it is the only one).
    private(set) var suspectRunning = false
    /// Tasks waiting for a slot, oldest first (never more than the prefetch count).
    private(set) var waiting: [Item] = []

    init(
        slots: Int, priority: @escaping @Sendable (Item) -> Int = { _ in 0 }, isSuspect: @escaping @Sendable (Item) -> Bool = { _ in false }
    ) {
        self.slots = max(1, slots)
        self.priority = priority
        self.isSuspect = isSuspect
    }

    /// A task arrived: returns the tasks to start now (each now holds a slot), this one among them
    /// when it may start; the others wait.
    mutating func arrived(_ item: Item) -> [Item] {
        waiting.append(item)
        return startable()
    }

    /// `finished`'s procedure returned (or a task handed out was not started after all): its slot
    /// frees, and the tasks returned take slots, to be started.
    mutating func slotFreed(_ finished: Item) -> [Item] {
        busy = max(0, busy - 1)
        if isSuspect(finished) { suspectRunning = false }
        return startable()
    }

    /// Takes the waiting tasks that match out of the queue (cancelled, handed back, or
    /// delivered on a connection that is gone), oldest first.
    mutating func removeWaiting(where matches: (Item) -> Bool) -> [Item] {
        let removed = waiting.filter(matches)
        if !removed.isEmpty { waiting.removeAll(where: matches) }
        return removed
    }

    /// Hands out waiting tasks in order (highest priority, oldest first) while slots are free. A
    /// suspect first in line waits for every running task to end, and the tasks after it wait with
    /// it, so it is never passed over for ever.
    private mutating func startable() -> [Item] {
        var started: [Item] = []
        while busy < slots, !suspectRunning, !waiting.isEmpty {
            var best = 0
            var bestPriority = priority(waiting[0])
            for index in waiting.indices.dropFirst() {
                let p = priority(waiting[index])
                if p > bestPriority { (best, bestPriority) = (index, p) }
            }
            let suspect = isSuspect(waiting[best])
            if suspect && busy > 0 { break }
            busy += 1
            suspectRunning = suspect
            started.append(waiting.remove(at: best))
        }
        return started
    }
}
