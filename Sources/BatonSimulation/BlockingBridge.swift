import Foundation

/// Runs async work to completion from the simulator's synchronous loop. The simulator runs on a
/// thread of its own (never on Swift's cooperative pool), so waiting here starves nothing; the
/// procedures it runs this way (echo, add, fail, fib, …) do not depend on timing, so the outcome is
/// the same on every replay.
enum BlockingBridge {
    final class Box<T>: @unchecked Sendable {
        // Safe: written once before the semaphore is signalled, read after it is waited on.
        var value: T?
    }

    static func run<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
        let box = Box<T>()
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            box.value = await body()
            done.signal()
        }
        done.wait()
        return box.value!
    }
}
