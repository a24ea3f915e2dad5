/// A worker's slots and the tasks waiting in the worker for one, as a value.
///
/// The broker sends up to the prefetch count of tasks; those beyond the free slots wait
/// here, so a slot that frees (its procedure returned) starts the next task at once,
/// without waiting for the broker: the highest-priority one, oldest first among equals (tasks
/// of several queues wait here together, as with quorum queues' priority bands). It does no
/// I/O; `TaskConsumer` carries out what it returns.
struct SlotQueue<Item: Sendable>: Sendable {
    let slots: Int
    /// The priority of a task (higher starts first).
    let priority: @Sendable (Item) -> Int
    /// Slots holding a running task.
    private(set) var busy = 0
    /// Tasks waiting for a slot, oldest first (never more than the prefetch count).
    private(set) var waiting: [Item] = []

    init(slots: Int, priority: @escaping @Sendable (Item) -> Int = { _ in 0 }) {
        self.slots = max(1, slots)
        self.priority = priority
    }

    /// A task arrived: returned when a slot is free (it now holds that slot), else it waits.
    mutating func arrived(_ item: Item) -> Item? {
        guard busy < slots else {
            waiting.append(item)
            return nil
        }
        busy += 1
        return item
    }

    /// A procedure returned: its slot goes to the highest-priority waiting task (the oldest of
    /// those), returned to be started, or becomes free.
    mutating func slotFreed() -> Item? {
        if waiting.isEmpty {
            busy = max(0, busy - 1)
            return nil
        }
        var best = 0
        var bestPriority = priority(waiting[0])
        for index in waiting.indices.dropFirst() {
            let p = priority(waiting[index])
            if p > bestPriority { (best, bestPriority) = (index, p) }
        }
        return waiting.remove(at: best)
    }

    /// Takes the waiting tasks that match out of the queue (cancelled, handed back, or
    /// delivered on a connection that is gone), oldest first.
    mutating func removeWaiting(where matches: (Item) -> Bool) -> [Item] {
        let removed = waiting.filter(matches)
        if !removed.isEmpty { waiting.removeAll(where: matches) }
        return removed
    }
}
