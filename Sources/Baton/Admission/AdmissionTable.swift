/// Who holds and who waits for each mutex category, concurrency key and in-flight cache slot,
/// across every run: a value, so the coordinator and the in-process engine decide grants the same way.
///
/// A request is granted all or none, never in part, so two nodes taking `[a, b]` and `[b, a]` cannot
/// deadlock. Waiters go first come, first served: a waiter goes only when no earlier waiter wants one
/// of its claims (it heads each claim's line), so no later node starves an earlier one. Every call returns the changes it made
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
    /// Granted requests per claim name.
    private var held: [String: Int] = [:]
    /// Waiting requests per claim name, oldest first: a waiter goes only when it heads the line of
    /// every claim it wants (and each has room), so a release looks at those lines' heads only.
    private var lines: [String: [Int64]] = [:]
    /// The number the next request gets (FIFO order, also across restarts).
    public private(set) var nextSeq: Int64 = 1

    /// A table as stored: `entries` in any order. Call `grantWaiting()` after, in case a waiter can go.
    public init(entries: [Entry] = []) {
        for entry in entries.sorted(by: { $0.seq < $1.seq }) {
            self.entries[entry.seq] = entry
            slots[Self.slot(entry.runID, entry.key)] = entry.seq
            for claim in entry.claims {
                if entry.granted { held[claim.name, default: 0] += 1 } else { lines[claim.name, default: []].append(entry.seq) }
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
        var entry = Entry(seq: nextSeq, runID: runID, key: request.key, claims: request.claims, cache: request.cache, granted: false)
        nextSeq += 1
        slots[Self.slot(runID, request.key)] = entry.seq
        if entry.claims.isEmpty {  // nothing to wait for
            entry.granted = true
            entries[entry.seq] = entry
            return [.requested(entry), .granted(entry)]
        }
        entries[entry.seq] = entry
        for claim in entry.claims { lines[claim.name, default: []].append(entry.seq) }
        return [.requested(entry)] + grant(heads: entry.claims.map(\.name))
    }

    /// Drops the node's request, held or waiting, and grants what can go now.
    public mutating func release(runID: String, key: String) -> [Change] {
        guard let seq = slots[Self.slot(runID, key)] else { return [] }
        let entry = remove(seq)
        return [.released(entry)] + grant(heads: entry.claims.map(\.name))
    }

    /// Drops every request of a run (it ended as a whole, e.g. failed because it cannot be stored).
    public mutating func releaseAll(runID: String) -> [Change] {
        let mine = entries.values.filter { $0.runID == runID }.map(\.seq).sorted()
        guard !mine.isEmpty else { return [] }
        let removed = mine.map { remove($0) }
        return removed.map { .released($0) } + grant(heads: removed.flatMap { $0.claims.map(\.name) })
    }

    /// Grants every waiter that can go (after a restore).
    public mutating func grantWaiting() -> [Change] { grant(heads: Array(lines.keys)) }

    /// Grants, oldest first, each waiter that heads the line of every claim it wants when each has room,
    /// starting from the heads of `names` and going on with the lines a grant moved on.
    private mutating func grant(heads names: [String]) -> [Change] {
        var changes: [Change] = []
        var work = Set(names).sorted { (lines[$0]?.first ?? .max) < (lines[$1]?.first ?? .max) }
        var next = 0
        while next < work.count {
            let name = work[next]
            next += 1
            guard let seq = lines[name]?.first, var entry = entries[seq] else { continue }
            let goes = entry.claims.allSatisfy { lines[$0.name]?.first == seq && (held[$0.name] ?? 0) < $0.limit }
            guard goes else { continue }
            entry.granted = true
            entries[seq] = entry
            for claim in entry.claims {
                held[claim.name, default: 0] += 1
                lines[claim.name]!.removeFirst()
                if lines[claim.name]!.isEmpty { lines[claim.name] = nil } else { work.append(claim.name) }
            }
            changes.append(.granted(entry))
        }
        return changes
    }

    private mutating func remove(_ seq: Int64) -> Entry {
        let entry = entries.removeValue(forKey: seq)!
        slots[Self.slot(entry.runID, entry.key)] = nil
        for claim in entry.claims {
            if entry.granted {
                let left = (held[claim.name] ?? 1) - 1
                held[claim.name] = left > 0 ? left : nil
            } else {
                lines[claim.name]?.removeAll { $0 == seq }
                if lines[claim.name]?.isEmpty == true { lines[claim.name] = nil }
            }
        }
        return entry
    }

    private static func slot(_ runID: String, _ key: String) -> String { runID + "\u{0}" + key }
}
