import Dispatch
import Foundation
import Logging

/// Runs a process's services until SIGTERM or SIGINT, then shuts them down one at a time, the last
/// first, each once the one after it has returned: a worker drains while its `/metrics` still
/// answers, and the trace exporter stops after both. A service that returns or throws by itself, or
/// the calling task's cancellation, shuts the others down the same way. Rethrows the first error.
public enum GracefulServices {
    public static func run(_ services: [any GracefulService], signals: [Int32] = [SIGTERM, SIGINT], logger: Logger) async throws {
        let begin = Latch()
        let ended = services.map { _ in Latch() }
        let sources = signals.map { number in
            signal(number, SIG_IGN)  // the dispatch source sees it instead of the default action
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                logger.info("received signal \(number): shutting down gracefully")
                begin.set()
            }
            source.resume()
            return source
        }
        defer {
            for (source, number) in zip(sources, signals) {
                source.cancel()
                signal(number, SIG_DFL)
            }
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, service) in services.enumerated() {
                group.addTask {
                    defer {
                        ended[index].set()
                        begin.set()
                    }
                    try await service.run()
                }
            }
            group.addTask {
                await begin.wait()
                for index in services.indices.reversed() {
                    await services[index].shutDown()
                    await ended[index].wait()
                }
            }
            var first: (any Error)?
            await withTaskCancellationHandler {
                while !group.isEmpty {
                    do { try await group.next() } catch { first = first ?? error }
                }
            } onCancel: {
                begin.set()
            }
            if let first { throw first }
        }
    }
}

/// A one-way flag that tasks await without holding a thread (`StopSignal` blocks a thread instead).
final class Latch: @unchecked Sendable {
    // Safe: `open` and `waiters` are only touched with `lock` held.
    private let lock = NSLock()
    private var open = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func set() {
        let woken: [CheckedContinuation<Void, Never>] = lock.withLock {
            open = true
            defer { waiters = [] }
            return waiters
        }
        for waiter in woken { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let already: Bool = lock.withLock {
                if open { return true }
                waiters.append(waiter)
                return false
            }
            if already { waiter.resume() }
        }
    }
}
