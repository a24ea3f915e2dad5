import Foundation

/// Lets an attempt's log lines through at a bounded rate, as `ProgressThrottle` does progress: a
/// burst of `burst` lines, then `perSecond` a second (a token bucket). Lines beyond are dropped
/// and counted, and the count goes out as a log line of its own (`droppedLine`) before the next
/// line let through, or when the attempt ends: a procedure that logs in a tight loop cannot fill
/// the worker's outbox, and the node's events say what was lost.
final class LogThrottle: @unchecked Sendable {
    // Safe: every field is touched only under `lock`.
    private let lock = NSLock()
    private let burst: Double
    private let perSecond: Double
    private var tokens: Double
    private var last: Date?
    private var dropped = 0

    init(burst: Int = 20, perSecond: Double = 10) {
        self.burst = Double(burst)
        self.perSecond = perSecond
        tokens = Double(burst)
    }

    /// Whether a line logged at `now` goes out, and how many lines were dropped before it (to report first).
    func allow(at now: Date) -> (allowed: Bool, droppedBefore: Int) {
        lock.withLock {
            if let last { tokens = min(burst, tokens + max(0, now.timeIntervalSince(last)) * perSecond) }
            last = now
            guard tokens >= 1 else {
                dropped += 1
                return (false, 0)
            }
            tokens -= 1
            defer { dropped = 0 }
            return (true, dropped)
        }
    }

    /// Lines dropped since the last one let through (reported when the attempt ends).
    func takeDropped() -> Int {
        lock.withLock {
            defer { dropped = 0 }
            return dropped
        }
    }

    /// The log line that reports `count` dropped lines.
    static func droppedLine(_ count: Int) -> String {
        "\(count) log line\(count == 1 ? "" : "s") dropped: the procedure logged faster than the worker sends (more than 10 a second)"
    }
}
