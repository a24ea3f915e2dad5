/// A bounded set that forgets its oldest members once it holds more than `capacity`.
public struct RecentSet<Element: Hashable & Sendable>: Sendable {
    private var members = Set<Element>()
    private var order: [Element] = []
    private var head = 0
    public let capacity: Int

    public init(capacity: Int) { self.capacity = max(1, capacity) }

    public func contains(_ member: Element) -> Bool { members.contains(member) }

    public var count: Int { members.count }

    /// Forgets `member`; the order list keeps a stale entry, which is harmless.
    public mutating func remove(_ member: Element) { members.remove(member) }

    /// Forgets every member `shouldRemove` names (stale order entries, as for `remove`).
    public mutating func removeAll(where shouldRemove: (Element) -> Bool) { members = members.filter { !shouldRemove($0) } }

    public mutating func insert(_ member: Element) {
        guard members.insert(member).inserted else { return }
        order.append(member)
        while members.count > capacity, head < order.count {
            members.remove(order[head])
            head += 1
        }
        if head > capacity {
            order.removeFirst(head)
            head = 0
        }
    }
}
