import Foundation
import HeapModule

/// Timers by key, earliest first, in a heap: arming one is O(log n) and the earliest is read in
/// O(1), instead of scanning every timed key. Entries are not removed when a key's time changes:
/// a stale entry (one whose time is not the key's current time) is dropped when it reaches the top,
/// and the heap is rebuilt when stale entries outnumber the live ones.
public struct TimerQueue<Key: Hashable & Sendable>: Sendable {
    struct Entry: Comparable, Sendable {
        let at: Date
        /// Arming order, so equal times come out in the order they were armed.
        let seq: UInt64
        let key: Key
        static func < (a: Entry, b: Entry) -> Bool { (a.at, a.seq) < (b.at, b.seq) }
        static func == (a: Entry, b: Entry) -> Bool { a.at == b.at && a.seq == b.seq }
    }

    private var heap = Heap<Entry>()
    private var seq: UInt64 = 0
    /// The current time of each armed key: the truth the heap's entries are checked against.
    private(set) var armed: [Key: Date] = [:]

    public init() {}

    /// Arms `key` for `at`, or disarms it (nil).
    public mutating func set(_ key: Key, at: Date?) {
        guard armed[key] != at else { return }
        armed[key] = at
        if let at {
            seq &+= 1
            heap.insert(Entry(at: at, seq: seq, key: key))
        }
        dropStale()
        if heap.count > 64 && heap.count > 2 * armed.count { rebuild() }
    }

    /// The earliest armed time.
    public var earliest: Date? { heap.min?.at }

    /// Takes the keys armed for `now` or earlier, earliest first, and disarms them: the caller
    /// handles each and arms it again with its next time, if it has one.
    public mutating func takeDue(at now: Date) -> [Key] {
        var keys: [Key] = []
        while let top = heap.min, top.at <= now {
            heap.removeMin()
            if armed[top.key] == top.at {
                armed[top.key] = nil
                keys.append(top.key)
            }
        }
        dropStale()
        return keys
    }

    /// Whether `key` is armed.
    public func isArmed(_ key: Key) -> Bool { armed[key] != nil }

    /// How many keys are armed.
    public var count: Int { armed.count }

    private mutating func dropStale() {
        while let top = heap.min, armed[top.key] != top.at { heap.removeMin() }
    }

    private mutating func rebuild() {
        var entries: [Entry] = []
        entries.reserveCapacity(armed.count)
        for (key, at) in armed {
            seq &+= 1
            entries.append(Entry(at: at, seq: seq, key: key))
        }
        heap = Heap(entries)
    }
}
