import Foundation

/// A point in time to stop waiting at; an infinite timeout never expires.
struct Deadline {
    private let end: ContinuousClock.Instant?

    init(seconds: Double) {
        end = seconds.isFinite ? ContinuousClock.now + .seconds(max(0, seconds)) : nil
    }

    var isExpired: Bool {
        guard let end else { return false }
        return ContinuousClock.now >= end
    }

    /// The time left in whole milliseconds, rounded up, for poll(2) (-1: forever).
    var remainingMilliseconds: Int32 {
        guard let end else { return -1 }
        let left = max(.zero, end - ContinuousClock.now)
        let (seconds, attoseconds) = left.components
        let ms = seconds * 1_000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: ms)
    }

    /// Calls `body` with the time left as a `timeval` (nil: wait forever).
    func withRemaining<R>(_ body: (UnsafePointer<timeval>?) -> R) -> R {
        guard let end else { return body(nil) }
        var value = Self.timeval(max(.zero, end - ContinuousClock.now))
        return withUnsafePointer(to: &value) { body($0) }
    }

    /// Converts a non-negative number of seconds to a `timeval`.
    static func timeval(seconds: Double) -> timeval {
        timeval(.seconds(max(0, seconds)))
    }

    private static func timeval(_ duration: Duration) -> timeval {
        let (seconds, attoseconds) = duration.components
        return Foundation.timeval(tv_sec: .init(seconds), tv_usec: .init(attoseconds / 1_000_000_000_000))
    }
}
