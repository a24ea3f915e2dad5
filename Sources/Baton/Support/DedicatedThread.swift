import Foundation

/// Runs blocking work (libpq, librabbitmq) on a thread of its own, never on
/// Swift's cooperative pool, and lets async code await it.
public enum DedicatedThread {
    /// Runs `body` on a new thread named `name` and returns its result.
    public static func run<T: Sendable>(name: String, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                do { continuation.resume(returning: try body()) } catch { continuation.resume(throwing: error) }
            }
            thread.name = name
            thread.stackSize = 8 << 20
            thread.start()
        }
    }
}
