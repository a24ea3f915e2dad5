import Baton
import Foundation
import Logging

/// Starts P worker processes, restarts any that dies (after a back-off that grows while it
/// keeps dying at once: `RestartPolicy`), and on shutdown sends each SIGTERM and waits for
/// them to drain and exit. The processes run this executable with `arguments`.
public final class WorkerSupervisor: GracefulService, @unchecked Sendable {
    // Safe: `children`, `started`, `restarts` and `stopping` are only touched with `lock` held.
    private let processes: Int
    private let arguments: [String]
    private let logger: Logger
    private let lock = NSLock()
    private var children: [Int: Process] = [:]
    private var stopping = false
    private var started: [Int: Date] = [:]
    private var restarts = RestartPolicy()
    private let allExited = StopSignal()
    /// Set on shutdown: ends a restart's back-off at once.
    private let shutdown = StopSignal()

    public init(processes: Int, arguments: [String], logger: Logger) {
        self.processes = processes
        self.arguments = arguments
        self.logger = logger
    }

    public func run() async throws {
        for slot in 0..<processes { try launch(slot) }
        _ = try? await DedicatedThread.run(name: "baton-supervisor") { [allExited] in
            while !allExited.wait(3600) {}
        }
    }

    /// Sends each process SIGTERM; `run()` returns once all have exited.
    public func shutDown() async {
        let running: [Process] = lock.withLock {
            stopping = true
            return Array(children.values)
        }
        shutdown.set()
        logger.info("stopping \(running.count) worker process(es)")
        for child in running where child.isRunning { kill(child.processIdentifier, SIGTERM) }
        if running.isEmpty { allExited.set() }
    }

    private func launch(_ slot: Int) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.executablePath)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["BATON_WORKER_SLOT"] = String(slot)
        process.environment = environment
        process.terminationHandler = { [weak self] finished in self?.exited(slot, finished) }
        // Launch and register under the lock, so a shutdown either sees this child or stops it from starting.
        let started: Bool = try lock.withLock {
            guard !stopping else { return false }
            try process.run()
            children[slot] = process
            self.started[slot] = Date()
            return true
        }
        if started { logger.info("worker process \(slot) started (pid \(process.processIdentifier))") }
    }

    private func exited(_ slot: Int, _ process: Process) {
        let status = process.terminationStatus
        let reason = process.terminationReason == .uncaughtSignal ? "signal \(status)" : "exit \(status)"
        let (restart, remaining, delay): (Bool, Int, Double) = lock.withLock {
            if stopping { children[slot] = nil }
            let lived = Date().timeIntervalSince(started[slot] ?? Date())
            return (!stopping, children.count, restarts.ended(slot: slot, after: lived))
        }
        if restart {
            logger.warning(
                "worker process \(slot) (pid \(process.processIdentifier)) ended with \(reason); restarting in \(String(format: "%.1f", delay)) s")
            _ = shutdown.wait(delay)
            do { try launch(slot) } catch { logger.error("cannot restart worker process \(slot): \(error)") }
            // A shutdown during the pause finds no child for this slot: count it as ended.
            let remaining: Int? = lock.withLock {
                guard stopping, children[slot] === process else { return nil }
                children[slot] = nil
                return children.count
            }
            if remaining == 0 { allExited.set() }
        } else {
            logger.info("worker process \(slot) ended with \(reason)")
            if remaining == 0 { allExited.set() }
        }
    }

    public static var executablePath: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }
}
