import Foundation

/// Lets at most four progress reports a second through per attempt (and always the final one).
final class ProgressThrottle: @unchecked Sendable {
    // Safe: `last` is only touched under `lock`.
    private let lock = NSLock()
    private var last = Date.distantPast

    func allow(final: Bool) -> Bool {
        lock.withLock {
            let now = Date()
            guard final || now.timeIntervalSince(last) >= 0.25 else { return false }
            last = now
            return true
        }
    }
}
