import Foundation

/// Who holds and who waits for each mutex category, concurrency key, in-flight cache slot and rate
/// key, across every run: a value, so the coordinator and the in-process engine decide grants the same way.
///
/// A request is granted all or none, never in part, so two nodes taking `[a, b]` and `[b, a]` cannot
/// deadlock. Waiters go in one order, higher priority first, then first come, first served: a waiter
/// goes only when no waiter before it wants one of its claims (it heads each claim's line), so no later
/// node of the same priority starves an earlier one. A rate claim has room while fewer than its limit
/// of tokens were taken within the last `tokenLifetime` (`now` is the time of the decision); a grant
/// takes a token, which is never given back (`tokens`, `nextToken`). A share claim (`fair/POOL:PROCEDURE`)
/// has room while fewer than `shareLimits[name]` (none: 0) hold it, and its line is not first come,
/// first served: among its waiters the highest priority goes first, then the fair key holding the
/// fewest grants per unit of its weight, then the oldest. Every call returns the changes it
/// made (to persist them, and to tell the runs whose nodes were granted).
public struct AdmissionTable: Sendable {
    /// One node's request.
    public struct Entry: Sendable, Equatable {
        public let seq: Int64
        public let runID: String
        public let key: String
        public let claims: [AdmissionClaim]
        public let cache: CacheLookup?
        public var granted: Bool
        public var priority: Int
        /// When it was granted (the time of the rate tokens it took).
        public var grantedAt: Date?

        public init(
            seq: Int64, runID: String, key: String, claims: [AdmissionClaim], cache: CacheLookup?, granted: Bool, priority: Int = 0,
            grantedAt: Date? = nil
        ) {
            self.seq = seq
            self.runID = runID
            self.key = key
            self.claims = claims
            self.cache = cache
            self.granted = granted
            self.priority = priority
            self.grantedAt = grantedAt
        }

        /// Whether it goes before `other` (higher priority, then older).
        func precedes(_ other: Entry) -> Bool { priority != other.priority ? priority > other.priority : seq < other.seq }
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
    /// Per rate claim name, when each token taken expires (it counts until then), oldest first.
    public private(set) var tokens: [String: [Date]] = [:]
    /// The time decisions are made at: rate tokens that expired by then are free again.
    public var now: Date
    /// Per share claim name, how many may hold it now (`shareLimit(slots:)` of the live workers'
    /// slots); a share claim not here has no room.
    public var shareLimits: [String: Int] = [:]
    /// Waiting requests per share claim name and fair key, in `precedes` order.
    private var shareLines: [String: [String: [Int64]]] = [:]
    /// Granted requests per share claim name and fair key.
    private var shareHeld: [String: [String: Int]] = [:]

    /// A table as stored: `entries` in any order, and the expiry times of the rate tokens taken. Call
    /// `grantWaiting()` after, in case a waiter can go.
    public init(
        entries: [Entry] = [], tokens: [String: [Date]] = [:], now: Date = Date(timeIntervalSince1970: 0), shareLimits: [String: Int] = [:]
    ) {
        self.now = now
        self.shareLimits = shareLimits
        self.tokens = tokens.mapValues { $0.sorted() }
        for entry in entries.sorted(by: { $0.precedes($1) }) {
            self.entries[entry.seq] = entry
            slots[Self.slot(entry.runID, entry.key)] = entry.seq
            for claim in entry.claims {
                if entry.granted {
                    if claim.per == nil { held[claim.name, default: 0] += 1 }
                    if let key = claim.shareKey { shareHeld[claim.name, default: [:]][key, default: 0] += 1 }
                } else if let key = claim.shareKey {
                    shareLines[claim.name, default: [:]][key, default: []].append(entry.seq)
                } else {
                    lines[claim.name, default: []].append(entry.seq)
                }
            }
            nextSeq = max(nextSeq, entry.seq + 1)
        }
    }

    /// How many tokens of the rate claim `name` count at `now`.
    public func tokensTaken(_ name: String) -> Int { tokens[name]?.count { $0 > now } ?? 0 }

    /// When the next rate token is due for a waiter that heads a rate line with no room, if any: the
    /// time to decide again (a waiter may still wait for something else then).
    public var nextToken: Date? {
        var earliest: Date?
        for (name, line) in lines {
            guard let seq = line.first, let claim = entries[seq]?.claims.first(where: { $0.name == name }), claim.per != nil else {
                continue
            }
            let live = (tokens[name] ?? []).filter { $0 > now }
            guard live.count >= claim.limit else { continue }
            let due = live[live.count - claim.limit]
            if earliest.map({ due < $0 }) ?? true { earliest = due }
        }
        return earliest
    }

    /// Every request, oldest first.
    public var all: [Entry] { entries.keys.sorted().map { entries[$0]! } }

    /// The request of `key` in `runID`, if it has one.
    public func entry(runID: String, key: String) -> Entry? { slots[Self.slot(runID, key)].flatMap { entries[$0] } }

    /// How many granted requests hold `claim` (a claim name such as `mutex/db`).
    public func holders(of claim: String) -> Int { held[claim] ?? 0 }

    /// How many granted requests hold the share claim `claim` with the fair key `key`.
    public func holders(of claim: String, shareKey key: String) -> Int { shareHeld[claim]?[key] ?? 0 }

    /// The share claim names someone waits for or holds (to look up their `shareLimits`).
    public var shareClaims: Set<String> { Set(shareLines.keys).union(shareHeld.keys) }

    /// The requests a grant pass needs of `entries` (as stored): all but the waiters of share claims
    /// past the first `perKey` of each claim and key in line order (`precedes`), which no pass with at
    /// most `perKey` room reaches. A backlog of thousands is not read at every grant.
    public static func shareHeads(_ entries: [Entry], perKey: Int) -> [Entry] {
        var lines: [String: [Entry]] = [:]
        var kept: [Entry] = []
        for entry in entries {
            guard !entry.granted, let claim = entry.claims.first(where: \.isShare) else {
                kept.append(entry)
                continue
            }
            lines[claim.name + "\u{0}" + claim.shareKey!, default: []].append(entry)
        }
        for line in lines.values { kept += line.sorted { $0.precedes($1) }.prefix(perKey) }
        return kept
    }

    /// How many nodes may hold a share claim whose live workers have `slots` slots in all: as many
    /// as run at once, and as many again plus `shareWindow` queued at the broker to start as soon as a
    /// slot is free (the window: short tasks finish faster than a grant goes round, so the workers never
    /// idle while what waits, waits here); none without a live worker.
    public static func shareLimit(slots: Int) -> Int { slots > 0 ? slots * 2 + shareWindow : 0 }

    /// The part of the window that does not grow with the slots.
    public static let shareWindow = 32

    /// `shareLimits` for `names` (share claim names, `fair/POOL:PROCEDURE`) from live workers' pools,
    /// procedures and slots: the slots of the workers that serve both the pool and the procedure.
    public static func shareLimits(
        for names: Set<String>, workers: [(pools: [String], procedures: [String], slots: Int)]
    ) -> [String: Int] {
        var limits: [String: Int] = [:]
        for name in names where name.hasPrefix(AdmissionClaim.sharePrefix) {
            let target = name.dropFirst(AdmissionClaim.sharePrefix.count)
            guard let colon = target.firstIndex(of: ":") else { continue }
            let pool = String(target[..<colon])
            let procedure = String(target[target.index(after: colon)...])
            let slots = workers.filter { $0.pools.contains(pool) && $0.procedures.contains(procedure) }.reduce(0) { $0 + $1.slots }
            limits[name] = shareLimit(slots: slots)
        }
        return limits
    }

    /// Queues a request (a node that already has one keeps it) and grants what can go.
    public mutating func request(runID: String, _ request: AdmissionRequest) -> [Change] {
        guard slots[Self.slot(runID, request.key)] == nil else { return [] }
        var entry = Entry(
            seq: nextSeq, runID: runID, key: request.key, claims: request.claims, cache: request.cache, granted: false,
            priority: request.priority)
        nextSeq += 1
        slots[Self.slot(runID, request.key)] = entry.seq
        if entry.claims.isEmpty {  // nothing to wait for
            entry.granted = true
            entry.grantedAt = now
            entries[entry.seq] = entry
            return [.requested(entry), .granted(entry)]
        }
        entries[entry.seq] = entry
        for claim in entry.claims {
            if let key = claim.shareKey {
                var line = shareLines[claim.name]?[key] ?? []
                let at = line.lastIndex { entries[$0]!.precedes(entry) }.map { $0 + 1 } ?? line.startIndex
                line.insert(entry.seq, at: at)
                shareLines[claim.name, default: [:]][key] = line
                continue
            }
            var line = lines[claim.name, default: []]
            let at = line.firstIndex { entries[$0]!.precedes(entry) == false } ?? line.endIndex
            line.insert(entry.seq, at: at)
            lines[claim.name] = line
        }
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
    public mutating func grantWaiting() -> [Change] { grant(heads: Array(lines.keys) + Array(shareLines.keys)) }

    /// Grants, first in line first, each waiter that heads the line of every claim it wants when each has room,
    /// starting from the heads of `names` and going on with the lines a grant moved on.
    private mutating func grant(heads names: [String]) -> [Change] {
        var changes: [Change] = []
        var work = Set(names).sorted { a, b in
            guard let x = head(a).flatMap({ entries[$0] }) else { return false }
            guard let y = head(b).flatMap({ entries[$0] }) else { return true }
            return x.precedes(y)
        }
        var next = 0
        while next < work.count {
            let name = work[next]
            next += 1
            guard let seq = head(name), var entry = entries[seq] else { continue }
            let goes = entry.claims.allSatisfy { head($0.name) == seq && hasRoom($0) }
            guard goes else { continue }
            entry.granted = true
            entry.grantedAt = now
            entries[seq] = entry
            for claim in entry.claims {
                if let lifetime = claim.tokenLifetime {
                    var taken = (tokens[claim.name] ?? []).filter { $0 > now }
                    taken.append(now.addingTimeInterval(lifetime))
                    tokens[claim.name] = taken.sorted()
                } else {
                    held[claim.name, default: 0] += 1
                }
                if let key = claim.shareKey {
                    shareHeld[claim.name, default: [:]][key, default: 0] += 1
                    shareLines[claim.name]![key]!.removeFirst()
                    if shareLines[claim.name]![key]!.isEmpty { shareLines[claim.name]![key] = nil }
                    if shareLines[claim.name]!.isEmpty { shareLines[claim.name] = nil } else { work.append(claim.name) }
                    continue
                }
                lines[claim.name]!.removeFirst()
                if lines[claim.name]!.isEmpty { lines[claim.name] = nil } else { work.append(claim.name) }
            }
            changes.append(.granted(entry))
        }
        return changes
    }

    /// Whether `claim` can be granted once more now.
    private func hasRoom(_ claim: AdmissionClaim) -> Bool {
        if claim.isShare { return (held[claim.name] ?? 0) < (shareLimits[claim.name] ?? 0) }
        return claim.per == nil ? (held[claim.name] ?? 0) < claim.limit : tokensTaken(claim.name) < claim.limit
    }

    /// The waiter that goes next for the claim `name`: its line's first, or for a share claim, among
    /// the first of each fair key's line, the highest priority, then the key with the fewest grants
    /// per unit of weight, then the oldest.
    private func head(_ name: String) -> Int64? {
        if let line = lines[name] { return line.first }
        guard let keys = shareLines[name] else { return nil }
        var best: (entry: Entry, held: Int, weight: Int)?
        for (key, line) in keys {
            guard let seq = line.first, let entry = entries[seq] else { continue }
            let weight = max(1, entry.claims.first { $0.name == name }?.weight ?? 1)
            let held = shareHeld[name]?[key] ?? 0
            guard let b = best else {
                best = (entry, held, weight)
                continue
            }
            let goesFirst =
                entry.priority != b.entry.priority
                ? entry.priority > b.entry.priority
                : held * b.weight != b.held * weight ? held * b.weight < b.held * weight : entry.seq < b.entry.seq
            if goesFirst { best = (entry, held, weight) }
        }
        return best?.entry.seq
    }

    private mutating func remove(_ seq: Int64) -> Entry {
        let entry = entries.removeValue(forKey: seq)!
        slots[Self.slot(entry.runID, entry.key)] = nil
        for claim in entry.claims {
            if entry.granted {
                guard claim.per == nil else { continue }  // a rate token is not given back
                let left = (held[claim.name] ?? 1) - 1
                held[claim.name] = left > 0 ? left : nil
                if let key = claim.shareKey {
                    let mine = (shareHeld[claim.name]?[key] ?? 1) - 1
                    shareHeld[claim.name]?[key] = mine > 0 ? mine : nil
                    if shareHeld[claim.name]?.isEmpty == true { shareHeld[claim.name] = nil }
                }
            } else if let key = claim.shareKey {
                shareLines[claim.name]?[key]?.removeAll { $0 == seq }
                if shareLines[claim.name]?[key]?.isEmpty == true { shareLines[claim.name]?[key] = nil }
                if shareLines[claim.name]?.isEmpty == true { shareLines[claim.name] = nil }
            } else {
                lines[claim.name]?.removeAll { $0 == seq }
                if lines[claim.name]?.isEmpty == true { lines[claim.name] = nil }
            }
        }
        return entry
    }

    private static func slot(_ runID: String, _ key: String) -> String { runID + "\u{0}" + key }
}
