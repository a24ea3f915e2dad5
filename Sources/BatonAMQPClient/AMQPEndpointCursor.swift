import Foundation

/// Which broker of a list a process reaches first: the one that answered last time, so a new
/// connection goes where the others are, and passes over a dead node only once it failed.
final class AMQPEndpointCursor: @unchecked Sendable {
    // Safe: `last` is only touched under `lock`.
    private let lock = NSLock()
    private var last: [String: Int] = [:]

    static let shared = AMQPEndpointCursor()

    /// The indices of `endpoints` in the order to try them.
    func order(_ endpoints: AMQPEndpoints) -> [Int] {
        let count = endpoints.urls.count
        let start = lock.withLock { last[endpoints.redacted] ?? 0 }
        return (0..<count).map { (start + $0) % count }
    }

    /// `index` answered.
    func answered(_ index: Int, of endpoints: AMQPEndpoints) {
        lock.withLock { last[endpoints.redacted] = index }
    }
}
