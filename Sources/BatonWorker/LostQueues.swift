import Foundation

/// The task queues the broker cancelled this worker's consumer of (`basic.cancel`: the queue was
/// deleted), as a value: when to look again whether each exists (it is declared again by the
/// coordinator, or by `baton migrate`), with a back-off from 1 s doubling to 30 s. The worker keeps
/// consuming its other queues meanwhile; `TaskConsumer` carries out what this decides.
struct LostQueues: Sendable, Equatable {
    /// The first wait and the longest one, in seconds.
    static let firstWait = 1.0
    static let longestWait = 30.0

    private struct Lost: Sendable, Equatable {
        var retryAt: Date
        var wait: Double
    }

    private var lost: [String: Lost] = [:]

    /// Whether any queue is lost.
    var isEmpty: Bool { lost.isEmpty }

    /// The queues lost now, by name.
    var names: [String] { lost.keys.sorted() }

    /// The consumer of `queue` was cancelled at `now`: it is looked for again after the first wait.
    /// True when it was not lost already (the worker logs it once).
    mutating func cancelled(_ queue: String, now: Date) -> Bool {
        guard lost[queue] == nil else { return false }
        lost[queue] = Lost(retryAt: now.addingTimeInterval(Self.firstWait), wait: Self.firstWait)
        return true
    }

    /// The lost queues due for a look at `now`, by name.
    func due(now: Date) -> [String] { lost.filter { $0.value.retryAt <= now }.keys.sorted() }

    /// `queue` exists again and is consumed: no longer lost.
    mutating func resumed(_ queue: String) { lost[queue] = nil }

    /// `queue` does not exist yet: look again after twice the last wait (at most `longestWait`).
    mutating func stillMissing(_ queue: String, now: Date) {
        guard var entry = lost[queue] else { return }
        entry.wait = min(Self.longestWait, entry.wait * 2)
        entry.retryAt = now.addingTimeInterval(entry.wait)
        lost[queue] = entry
    }

    /// The worker connected again (and consumes every queue afresh): nothing is lost.
    mutating func reset() { lost = [:] }
}
