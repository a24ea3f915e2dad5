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

    /// Counts `count` lines let through by the rate but refused by the worker's full outbox (or the
    /// count of dropped lines that could not go out): they go out with the next count.
    func dropped(_ count: Int) { lock.withLock { dropped += count } }

    /// Lines dropped since the last one let through (reported when the attempt ends).
    func takeDropped() -> Int {
        lock.withLock {
            defer { dropped = 0 }
            return dropped
        }
    }

    /// The log line that reports `count` dropped lines.
    static func droppedLine(_ count: Int) -> String {
        "\(count) log line\(count == 1 ? "" : "s") dropped: the procedure logged faster than the worker sends "
            + "(more than 10 a second, or more than the broker took)"
    }

    /// Longest log line (or progress message) sent, in UTF-8 bytes; a longer one is cut there.
    static let maxLineBytes = 8192

    /// `line`, cut to at most `maxLineBytes` bytes (at a character's boundary) and saying how much was cut.
    static func clipped(_ line: String) -> String {
        let utf8 = line.utf8
        guard utf8.count > maxLineBytes else { return line }
        var end = utf8.index(utf8.startIndex, offsetBy: maxLineBytes - 64)
        while end > utf8.startIndex && UTF8.isContinuation(utf8[end]) {
            end = utf8.index(before: end)
        }
        let kept = String(line[..<end])
        return kept + " … (\(utf8.count - kept.utf8.count) more bytes cut)"
    }
}
