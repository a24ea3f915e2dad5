import BatonStore
import Foundation

/// A small, fixed set of store connections for the dashboard, each owned by a thread of its own:
/// libpq blocks, so queries never run on Swift's cooperative pool. A connection found lost is
/// closed and opened again, and a read tried once more on the new one (never a write: it may have
/// been stored before the connection went).
public final class StorePool: @unchecked Sendable {
    // Safe: `jobs` and `stopped` are only touched under `condition`; each slot's store only by its thread.
    private let condition = NSCondition()
    private var jobs: [@Sendable (Slot) -> Void] = []
    private var stopped = false
    private let maxQueued: Int
    /// Seconds a request waits for its answer before it gets a 503 (the database is unreachable or stalled).
    let deadline: Double

    /// `size` threads and connections (opened on first use) to `url`; a request not answered within
    /// `deadline` seconds fails with a 503 (its work, if it ever starts, is skipped or discarded).
    public init(url: String, size: Int = 3, maxQueued: Int = 256, deadline: Double = 4) {
        self.maxQueued = maxQueued
        self.deadline = deadline
        for i in 0..<max(1, size) {
            let slot = Slot(url: url)
            let thread = Thread { [self] in self.serve(slot) }
            thread.name = "baton-dashboard-store-\(i)"
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    /// Runs `body` with a connection on one of the pool's threads and returns its result.
    /// Throws a 503 if no answer came within the pool's deadline: a database that does not answer (a
    /// silent network, a stalled server) costs a request seconds, never a hung page.
    /// A `write` is never run twice: on a lost connection, or past the deadline, the caller learns
    /// that it may have been stored (so retries with its idempotency key).
    public func run<T: Sendable>(write: Bool = false, _ body: @escaping @Sendable (Store) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let answer = PoolAnswer(continuation)
            condition.lock()
            defer { condition.unlock() }
            guard !stopped, jobs.count < maxQueued else {
                answer.resume(throwing: DashboardError(status: 503, "the dashboard is busy or stopping; try again"))
                return
            }
            jobs.append { slot in
                guard !answer.isDone else { return }  // its request gave up while it was queued
                do { answer.resume(returning: try slot.with(retry: !write, body)) } catch { answer.resume(throwing: error) }
            }
            condition.signal()
            let seconds = deadline
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
                answer.resume(
                    throwing: DashboardError(
                        status: 503,
                        write
                            ? "the database did not answer within \(seconds) s; the change may still be stored: retry with the same Idempotency-Key, or look"
                            : "the database did not answer within \(seconds) s; try again"))
            }
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

        func with<T>(retry: Bool, _ body: (Store) throws -> T) throws -> T {
            do {
                return try body(try open())
            } catch  where Store.isConnectionLost(error) {
                close()
                guard retry else {
                    throw DashboardError(
                        status: 503, "the database connection was lost; the change may have been stored: retry with the same Idempotency-Key, or look"
                    )
                }
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
