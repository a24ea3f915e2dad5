import BatonStore
import Foundation

/// A small, fixed set of store connections for the dashboard, each owned by a thread of its own:
/// libpq blocks, so queries never run on Swift's cooperative pool. A connection found lost is
/// closed and opened again, and the query tried once more on the new one.
public final class StorePool: @unchecked Sendable {
    // Safe: `jobs` and `stopped` are only touched under `condition`; each slot's store only by its thread.
    private let condition = NSCondition()
    private var jobs: [@Sendable (Slot) -> Void] = []
    private var stopped = false
    private let maxQueued: Int

    /// `size` threads and connections (opened on first use) to `url`.
    public init(url: String, size: Int = 3, maxQueued: Int = 256) {
        self.maxQueued = maxQueued
        for i in 0..<max(1, size) {
            let slot = Slot(url: url)
            let thread = Thread { [self] in self.serve(slot) }
            thread.name = "baton-dashboard-store-\(i)"
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    /// Runs `body` with a connection on one of the pool's threads and returns its result.
    public func run<T: Sendable>(_ body: @escaping @Sendable (Store) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            condition.lock()
            defer { condition.unlock() }
            guard !stopped, jobs.count < maxQueued else {
                continuation.resume(throwing: DashboardError(status: 503, "the dashboard is busy or stopping; try again"))
                return
            }
            jobs.append { slot in
                do { continuation.resume(returning: try slot.with(body)) } catch { continuation.resume(throwing: error) }
            }
            condition.signal()
        }
    }

    /// Stops the threads once the queued work is done, and closes their connections.
    public func close() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    private func serve(_ slot: Slot) {
        while true {
            condition.lock()
            while jobs.isEmpty && !stopped { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                slot.close()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job(slot)
        }
    }

    /// One connection, opened when first needed and again after it was lost.
    // Safe: a slot is made by `init` and then used only by the one thread it is handed to.
    final class Slot: @unchecked Sendable {
        let url: String
        var store: Store?

        init(url: String) { self.url = url }

        func with<T>(_ body: (Store) throws -> T) throws -> T {
            do {
                return try body(try open())
            } catch  where Store.isConnectionLost(error) {
                close()
                return try body(try open())
            }
        }

        func open() throws -> Store {
            if let store { return store }
            do {
                let opened = try Store(url: url)
                store = opened
                return opened
            } catch {
                throw DashboardError(status: 503, "the database cannot be reached: \(error)")
            }
        }

        func close() {
            store?.close()
            store = nil
        }
    }
}
