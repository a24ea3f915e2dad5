/// A worker's slots and the tasks waiting in the worker for one, as a value.
///
/// The broker sends up to the prefetch count of tasks; those beyond the free slots wait
/// here, so a slot that frees (its procedure returned) starts the next task at once,
/// without waiting for the broker. It does no I/O; `TaskConsumer` carries out what it returns.
struct SlotQueue<Item: Sendable>: Sendable {
    let slots: Int
    /// Slots holding a running task.
    private(set) var busy = 0
    /// Tasks waiting for a slot, oldest first (never more than the prefetch count).
    private(set) var waiting: [Item] = []

    init(slots: Int) { self.slots = max(1, slots) }

    /// A task arrived: returned when a slot is free (it now holds that slot), else it waits.
    mutating func arrived(_ item: Item) -> Item? {
        guard busy < slots else {
            waiting.append(item)
            return nil
        }
        busy += 1
        return item
    }

    /// A procedure returned: its slot goes to the oldest waiting task, returned to be
    /// started, or becomes free.
    mutating func slotFreed() -> Item? {
        if waiting.isEmpty {
            busy = max(0, busy - 1)
            return nil
        }
        return waiting.removeFirst()
    }

    /// Takes the waiting tasks that match out of the queue (cancelled, handed back, or
    /// delivered on a connection that is gone), oldest first.
    mutating func removeWaiting(where matches: (Item) -> Bool) -> [Item] {
        let removed = waiting.filter(matches)
        if !removed.isEmpty { waiting.removeAll(where: matches) }
        return removed
    }
}
