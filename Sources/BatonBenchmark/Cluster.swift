import Foundation

/// The coordinator and worker processes the benchmark started from the `baton` binary beside it.
final class Cluster: @unchecked Sendable {
    /// Every process started, the coordinator first; read by the interrupt handler.
    private(set) var processes: [Process] = []
    private let batonPath: String
    private let environment: [String: String]
    private let lock = NSLock()

    init(batonPath: String, databaseURL: String, amqpURL: String, logLevel: String) {
        self.batonPath = batonPath
        var e = ProcessInfo.processInfo.environment
        e["BATON_DATABASE_URL"] = databaseURL
        e["BATON_AMQP_URL"] = amqpURL
        e["BATON_LOG_LEVEL"] = logLevel
        environment = e
    }

    /// Starts `baton coordinator` and one process per worker invocation.
    func start(workers: [[String]]) throws {
        try launch(["coordinator"])
        for arguments in workers { try launch(arguments) }
    }

    private func launch(_ arguments: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: batonPath)
        p.arguments = arguments
        p.environment = environment
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        lock.withLock { processes.append(p) }
    }

    /// Stops the workers, then the coordinator (so it records that they left rather than finding
    /// their leases expired on its next start), and waits for them; the cluster can be started again.
    func stop() {
        let all = lock.withLock {
            defer { processes = [] }
            return processes
        }
        for group in [Array(all.dropFirst()), Array(all.prefix(1))] {
            for p in group where p.isRunning { p.terminate() }
            for p in group { p.waitUntilExit() }
        }
    }

    /// Process ids of the workers.
    var workerPIDs: [Int] { lock.withLock { processes.dropFirst().map { Int($0.processIdentifier) } } }

    /// Starts the peak-RSS count (VmHWM) of every process afresh at its current RSS, so the next
    /// reading is the peak of what follows (Linux: `5` into /proc/PID/clear_refs). False if the
    /// kernel refused; peaks then count from the process's start.
    @discardableResult
    func resetPeaks() -> Bool {
        lock.withLock { processes }.allSatisfy { p in
            (try? "5".write(toFile: "/proc/\(p.processIdentifier)/clear_refs", atomically: false, encoding: .utf8)) != nil
        }
    }

    /// Peak RSS in MB of the coordinator and of the largest worker.
    func peaks() -> (coordinator: Double, worker: Double) {
        let all = lock.withLock { processes }
        guard let coordinator = all.first else { return (.nan, .nan) }
        return (Self.peakMB(coordinator), all.dropFirst().map(Self.peakMB).max() ?? .nan)
    }

    /// The peak resident set of a process (VmHWM), in MB.
    private static func peakMB(_ process: Process) -> Double {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kb = Double(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { return .nan }
        return kb / 1024
    }
}
