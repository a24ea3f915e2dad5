import Foundation

/// How many event streams each token holds open, at most `limit` each (the 33rd is a 429): a stream
/// holds a connection and polls the store, so one token cannot take them all.
final class StreamSlots: @unchecked Sendable {
    // Safe: `open` is only touched under `lock`.
    private let lock = NSLock()
    private var open: [String: Int] = [:]
    let limit: Int

    init(limit: Int = 32) { self.limit = limit }

    /// Takes a slot for `token`; false when it holds `limit` already.
    func take(_ token: String) -> Bool {
        lock.withLock {
            guard open[token, default: 0] < limit else { return false }
            open[token, default: 0] += 1
            return true
        }
    }

    func give(_ token: String) {
        lock.withLock {
            open[token, default: 1] -= 1
            if open[token] == 0 { open[token] = nil }
        }
    }
}
