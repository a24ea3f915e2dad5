/// Who holds and who waits for each mutex category, concurrency key and in-flight cache slot,
/// across every run: a value, so the coordinator and the in-process engine decide grants the same way.
///
/// A request is granted all or none, never in part, so two nodes taking `[a, b]` and `[b, a]` cannot
/// deadlock. Waiters go first come, first served: a waiter is passed over while an earlier waiter wants
/// one of its claims, so no later node starves an earlier one. Every call returns the changes it made
/// (to persist them, and to tell the runs whose nodes were granted).
public struct AdmissionTable: Sendable {
    /// One node's request.
    public struct Entry: Sendable, Equatable {
        public let seq: Int64
        public let runID: String
        public let key: String
        public let claims: [AdmissionClaim]
        public let cache: CacheLookup?
        public var granted: Bool

        public init(seq: Int64, runID: String, key: String, claims: [AdmissionClaim], cache: CacheLookup?, granted: Bool) {
            self.seq = seq
            self.runID = runID
            self.key = key
            self.claims = claims
            self.cache = cache
            self.granted = granted
        }
    }

    /// What a call changed.
    public enum Change: Sendable, Equatable {
        case requested(Entry)
        case granted(Entry)
        case released(Entry)
    }

    private var entries: [Int64: Entry] = [:]
    private var slots: [String: Int64] = [:]
    private var held: [String: Int] = [:]
    private var waiting: [Int64] = []
    /// The number the next request gets (FIFO order, also across restarts).
    public private(set) var nextSeq: Int64 = 1

    /// A table as stored: `entries` in any order. Call `grantWaiting()` after, in case a waiter can go.
    public init(entries: [Entry] = []) {
        for entry in entries.sorted(by: { $0.seq < $1.seq }) {
            self.entries[entry.seq] = entry
            slots[Self.slot(entry.runID, entry.key)] = entry.seq
            if entry.granted {
                for claim in entry.claims { held[claim.name, default: 0] += 1 }
            } else {
                waiting.append(entry.seq)
            }
            nextSeq = max(nextSeq, entry.seq + 1)
        }
    }

    /// Every request, oldest first.
    public var all: [Entry] { entries.keys.sorted().map { entries[$0]! } }

    /// The request of `key` in `runID`, if it has one.
    public func entry(runID: String, key: String) -> Entry? { slots[Self.slot(runID, key)].flatMap { entries[$0] } }

    /// How many granted requests hold `claim` (a claim name such as `mutex/db`).
    public func holders(of claim: String) -> Int { held[claim] ?? 0 }

    /// Queues a request (a node that already has one keeps it) and grants what can go.
    public mutating func request(runID: String, _ request: AdmissionRequest) -> [Change] {
        guard slots[Self.slot(runID, request.key)] == nil else { return [] }
        let entry = Entry(seq: nextSeq, runID: runID, key: request.key, claims: request.claims, cache: request.cache, granted: false)
        nextSeq += 1
        entries[entry.seq] = entry
        slots[Self.slot(runID, request.key)] = entry.seq
        waiting.append(entry.seq)
        return [.requested(entry)] + grantWaiting()
    }

    /// Drops the node's request, held or waiting, and grants what can go now.
    public mutating func release(runID: String, key: String) -> [Change] {
        guard let seq = slots[Self.slot(runID, key)] else { return [] }
        return [remove(seq)] + grantWaiting()
    }

    /// Drops every request of a run (it ended as a whole, e.g. failed because it cannot be stored).
    public mutating func releaseAll(runID: String) -> [Change] {
        let mine = entries.values.filter { $0.runID == runID }.map(\.seq).sorted()
        guard !mine.isEmpty else { return [] }
        return mine.map { remove($0) } + grantWaiting()
    }

    /// Grants, oldest first, every waiter whose claims all have room and that no earlier waiter blocks.
    public mutating func grantWaiting() -> [Change] {
        var changes: [Change] = []
        var blocked = Set<String>()
        var still: [Int64] = []
        for seq in waiting {
            var entry = entries[seq]!
            let fits = entry.claims.allSatisfy { !blocked.contains($0.name) && (held[$0.name] ?? 0) < $0.limit }
            if fits {
                entry.granted = true
                entries[seq] = entry
                for claim in entry.claims { held[claim.name, default: 0] += 1 }
                changes.append(.granted(entry))
            } else {
                for claim in entry.claims { blocked.insert(claim.name) }
                still.append(seq)
            }
        }
        waiting = still
        return changes
    }

    private mutating func remove(_ seq: Int64) -> Change {
        let entry = entries.removeValue(forKey: seq)!
        slots[Self.slot(entry.runID, entry.key)] = nil
        if entry.granted {
            for claim in entry.claims {
                let left = (held[claim.name] ?? 1) - 1
                held[claim.name] = left > 0 ? left : nil
            }
        } else {
            waiting.removeAll { $0 == seq }
        }
        return .released(entry)
    }

    private static func slot(_ runID: String, _ key: String) -> String { runID + "\u{0}" + key }
}
