/// Nodes that are ready to run but wait for room in their run's dispatch window, highest priority
/// first and, within a priority, in the order they became ready.
struct ReadyQueue: Sendable {
    /// One first-in-first-out list per priority (0 to 9); `heads[p]` is where list `p` starts.
    private var lists: [[String]] = Array(repeating: [], count: 10)
    private var heads: [Int] = Array(repeating: 0, count: 10)

    mutating func push(_ key: String, priority: Int) {
        lists[min(max(priority, 0), 9)].append(key)
    }

    /// The next key to release, or nil when none waits.
    mutating func pop() -> String? {
        for p in stride(from: 9, through: 0, by: -1) where heads[p] < lists[p].count {
            let key = lists[p][heads[p]]
            heads[p] += 1
            if heads[p] == lists[p].count {
                lists[p].removeAll(keepingCapacity: false)
                heads[p] = 0
            } else if heads[p] >= 1024 && heads[p] * 2 >= lists[p].count {
                lists[p].removeFirst(heads[p])  // drop what was taken, so a long queue does not hold it
                heads[p] = 0
            }
            return key
        }
        return nil
    }
}
