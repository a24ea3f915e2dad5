import Foundation

/// A request's continuation, resumed once: by its answer or by its deadline, whichever comes first.
final class PoolAnswer<T: Sendable>: @unchecked Sendable {
    // Safe: `continuation` is only touched under `lock`.
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, Error>?

    init(_ continuation: CheckedContinuation<T, Error>) { self.continuation = continuation }

    /// True once resumed.
    var isDone: Bool { lock.withLock { continuation == nil } }

    func resume(returning value: T) { take()?.resume(returning: value) }

    func resume(throwing error: Error) { take()?.resume(throwing: error) }

    private func take() -> CheckedContinuation<T, Error>? {
        lock.withLock {
            defer { continuation = nil }
            return continuation
        }
    }
}
