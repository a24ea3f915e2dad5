import Foundation

/// Finds queued nodes whose task the broker no longer holds, as a value: the coordinator's shell
/// tells it what it published and what came back unroutable (`basic.return`), asks it which task
/// queues to look at (`queuesToCheck`), reads their depth, and publishes again what `decide`
/// returns, under the same attempt (a duplicate is harmless: the attempt number says so).
///
/// A task is taken for lost when:
/// - it came back unroutable (no queue was bound for its routing key: the queue was deleted);
/// - its queue holds no task at all while it waited there longer than `grace` without a worker
///   starting it (the queue was deleted, then declared again, or purged);
/// - but never while a worker's heartbeat says it holds the attempt (`held`): a task a worker took
///   and keeps waiting for a slot is not in its queue's count either;
/// - its queue holds fewer tasks than this coordinator has waiting there, and it is among the
///   oldest of those that waited longer than `longWait` (a purge, then new tasks came).
/// Each node goes out again at most once per back-off (`grace`, doubling, up to `maxBackoff`), and at
/// most `perPass` nodes per pass; a queue is looked at at most once per `interval` unless a return
/// says it was lost. The cost is one depth read per queue with old waiting tasks per interval.
struct LostTaskReconciler: Sendable {
    struct Settings: Sendable, Equatable {
        /// Seconds a task may wait in an empty queue before it is taken for lost (its publish is
        /// confirmed by then, and a worker that took it has said it started).
        var grace = 10.0
        /// Seconds after which a task is taken for lost when its queue holds fewer than wait there.
        var longWait = 300.0
        /// Seconds between two looks at the queues (unless a return asks for one sooner).
        var interval = 5.0
        /// Most nodes published again in one pass.
        var perPass = 1_000
        /// Longest wait between two publishes of the same node.
        var maxBackoff = 600.0
    }

    /// Why a task goes out again (the `reason` label of `baton_tasks_republished_total`).
    enum Reason: String, Sendable, CaseIterable {
        /// It came back unroutable: no queue was bound for it.
        case returned
        /// Its queue was empty while it waited there.
        case queueEmpty = "queue_empty"
        /// It waited unusually long, and its queue holds fewer tasks than wait there.
        case waitedLong = "waited_long"
    }

    /// One attempt of one node.
    struct Attempt: Hashable, Sendable, Comparable {
        let runID: String
        let key: String
        let attempt: Int

        static func < (a: Attempt, b: Attempt) -> Bool { (a.runID, a.key, a.attempt) < (b.runID, b.key, b.attempt) }
    }

    /// A task to publish again.
    struct Republish: Equatable, Sendable {
        let attempt: Attempt
        let queue: QueueName
        let reason: Reason
    }

    private struct Watched: Sendable {
        let queue: QueueName
        /// When it was first published (the wait counts from then).
        let since: Date
        /// Not published again before this time.
        var notBefore: Date
        var republished = 0
        /// It came back unroutable and was not published again since.
        var returned = false
    }

    let settings: Settings
    private var watched: [Attempt: Watched] = [:]
    /// Queues a return said were lost, with when to look at them.
    private var lost: [QueueName: Date] = [:]
    private var lastPass: Date?
    /// The watched tasks of each queue, as the pass's `queuesToCheck` found them.
    private var byQueue: [QueueName: [Attempt]] = [:]
    /// Attempts a worker's heartbeat said it holds, until when that holds (a few of its intervals).
    private var heldUntil: [Attempt: Date] = [:]
    /// The longest heartbeat interval heard with holdings: a task is not taken for lost before a
    /// heartbeat could have said a worker holds it.
    private var beatInterval = 0.0

    init(settings: Settings = Settings()) { self.settings = settings }

    /// Tasks watched now (queued, published by this coordinator).
    var count: Int { watched.count }

    /// A task was published (or published again): it is watched until its node leaves `queued`.
    mutating func published(_ attempt: Attempt, queue: QueueName, at now: Date) {
        if watched[attempt] == nil { watched[attempt] = Watched(queue: queue, since: now, notBefore: now) }
    }

    /// A task came back unroutable: its queue is looked at as soon as its back-off allows.
    mutating func returned(_ attempt: Attempt, queue: QueueName, at now: Date) {
        var entry = watched[attempt] ?? Watched(queue: queue, since: now, notBefore: now)
        entry.returned = true
        watched[attempt] = entry
        let at = max(now, entry.notBefore)
        lost[queue] = min(lost[queue] ?? at, at)
    }

    /// A worker's heartbeat (sent every `interval` seconds) lists the attempts it holds: none of them
    /// is taken for lost for three of its intervals.
    mutating func held(_ attempts: [Attempt], interval: Double, at now: Date) {
        let until = now.addingTimeInterval(3 * interval)
        for attempt in attempts where watched[attempt] != nil { heldUntil[attempt] = max(heldUntil[attempt] ?? until, until) }
        beatInterval = max(beatInterval, min(interval, 60))
    }

    /// Seconds a task waits before it may be taken for lost: `grace`, or longer than two heartbeats
    /// of the slowest worker that lists what it holds.
    private var wait: Double { max(settings.grace, 2 * beatInterval + 1) }

    /// Whether a pass is due now.
    func isDue(now: Date) -> Bool {
        if lost.values.contains(where: { $0 <= now }) { return true }
        guard let lastPass else { return !watched.isEmpty }
        return now.timeIntervalSince(lastPass) >= settings.interval && !watched.isEmpty
    }

    /// Starts a pass: forgets tasks whose node is no longer queued at that attempt (`stillQueued`),
    /// and returns the queues whose depth to read, in a stable order: those a return said were lost,
    /// and those with a task that waited past `grace` and may go out again.
    mutating func queuesToCheck(now: Date, stillQueued: (Attempt) -> Bool) -> [QueueName] {
        lastPass = now
        watched = watched.filter { stillQueued($0.key) }
        heldUntil = heldUntil.filter { $0.value > now && watched[$0.key] != nil }
        byQueue = [:]
        for (attempt, entry) in watched { byQueue[entry.queue, default: []].append(attempt) }
        var queues = Set(lost.filter { $0.value <= now }.keys)
        for entry in watched.values where entry.notBefore <= now && now.timeIntervalSince(entry.since) >= wait {
            queues.insert(entry.queue)
        }
        return queues.sorted { ($0.pool, $0.procedure) < ($1.pool, $1.procedure) }
    }

    /// Decides, from the depth of `queue` just read, which of its tasks go out again (oldest first,
    /// at most `budget`), and starts their back-off.
    mutating func decide(queue: QueueName, depth: Int, now: Date, budget: Int) -> [Republish] {
        let wasLost = lost[queue].map { $0 <= now } ?? false
        if wasLost { lost[queue] = nil }
        let waiting = (byQueue[queue] ?? []).compactMap { attempt in watched[attempt].map { (key: attempt, value: $0) } }
            .sorted { ($0.value.since, $0.key) < ($1.value.since, $1.key) }
        // Those a worker holds are neither in the queue nor lost.
        let old = waiting.filter { now.timeIntervalSince($0.value.since) >= wait && !(heldUntil[$0.key].map { $0 > now } ?? false) }
        var chosen: [(Attempt, Reason)] = []
        for (attempt, entry) in waiting where entry.returned { chosen.append((attempt, .returned)) }
        if depth == 0 || wasLost {
            for (attempt, entry) in old where !entry.returned { chosen.append((attempt, .queueEmpty)) }
        } else if old.count > depth {
            let missing = old.count - depth
            for (attempt, entry) in old.prefix(missing) where !entry.returned && now.timeIntervalSince(entry.since) >= settings.longWait {
                chosen.append((attempt, .waitedLong))
            }
        }
        var out: [Republish] = []
        for (attempt, reason) in chosen where out.count < budget {
            guard var entry = watched[attempt], entry.notBefore <= now else { continue }
            entry.republished += 1
            entry.returned = false
            entry.notBefore = now.addingTimeInterval(min(settings.maxBackoff, settings.grace * pow(2, Double(entry.republished - 1))))
            watched[attempt] = entry
            out.append(Republish(attempt: attempt, queue: queue, reason: reason))
        }
        // A return not handled yet (its node backs off): the queue is looked at again when it may go.
        if let next = waiting.compactMap({ watched[$0.key] }).filter(\.returned).map(\.notBefore).min() { lost[queue] = next }
        return out
    }

    /// Forgets everything (the coordinator reconnected: it publishes again what it resumes).
    mutating func reset() {
        watched = [:]
        byQueue = [:]
        heldUntil = [:]
        lost = [:]
        lastPass = nil
    }
}
