import Foundation

/// True for the first caller of `claim()` only.
final class OnceFlag: @unchecked Sendable {
    // Safe: `claimed` is only touched under `lock`.
    private let lock = NSLock()
    private var claimed = false
    func claim() -> Bool {
        lock.withLock {
            if claimed { return false }
            claimed = true
            return true
        }
    }
}
