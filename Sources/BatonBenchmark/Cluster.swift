import Foundation

/// The coordinator and worker processes the benchmark started from the `baton` binary beside it.
final class Cluster: @unchecked Sendable {
    /// Every process started, the coordinators first; read by the interrupt handler.
    private(set) var processes: [Process] = []
    /// How many of `processes` are coordinators.
    private(set) var coordinatorCount = 1
    private let batonPath: String
    let environment: [String: String]
    private let lock = NSLock()

    init(batonPath: String, databaseURL: String, amqpURL: String, logLevel: String) {
        self.batonPath = batonPath
        var e = ProcessInfo.processInfo.environment
        e["BATON_DATABASE_URL"] = databaseURL
        e["BATON_AMQP_URL"] = amqpURL
        e["BATON_LOG_LEVEL"] = logLevel
        environment = e
    }

    /// Starts `coordinators` × `baton coordinator` (with `coordinatorArguments`) and one process per worker invocation.
    func start(coordinators: Int = 1, coordinatorArguments: [String] = [], workers: [[String]]) throws {
        coordinatorCount = coordinators
        for _ in 0..<coordinators { try launch(["coordinator"] + coordinatorArguments) }
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
        let coordinators = lock.withLock { coordinatorCount }
        for group in [Array(all.dropFirst(coordinators)), Array(all.prefix(coordinators))] {
            for p in group where p.isRunning { p.terminate() }
            for p in group { p.waitUntilExit() }
        }
    }

    /// Process ids of the workers.
    var workerPIDs: [Int] { lock.withLock { processes.dropFirst(coordinatorCount).map { Int($0.processIdentifier) } } }

    /// CPU time (user and system) the coordinators used so far, in seconds, from /proc/PID/stat.
    func coordinatorCPU() -> Double {
        let coordinators = lock.withLock { Array(processes.prefix(coordinatorCount)) }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        return coordinators.reduce(0) { total, p in
            guard let stat = try? String(contentsOfFile: "/proc/\(p.processIdentifier)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return total }
            // Fields after the command's closing parenthesis: state is field 3, utime 14, stime 15.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return total }
            return total + (user + system) / ticks
        }
    }

    /// Starts the peak-RSS count (VmHWM) of every process afresh at its current RSS, so the next
    /// reading is the peak of what follows (Linux: `5` into /proc/PID/clear_refs). False if the
    /// kernel refused; peaks then count from the process's start.
    @discardableResult
    func resetPeaks() -> Bool {
        lock.withLock { processes }.allSatisfy { p in
            (try? "5".write(toFile: "/proc/\(p.processIdentifier)/clear_refs", atomically: false, encoding: .utf8)) != nil
        }
    }

    /// Peak RSS in MB of the largest coordinator and of the largest worker.
    func peaks() -> (coordinator: Double, worker: Double) {
        let (all, coordinators) = lock.withLock { (processes, coordinatorCount) }
        guard !all.isEmpty else { return (.nan, .nan) }
        return (all.prefix(coordinators).map { Self.peakMB($0) }.max() ?? .nan, all.dropFirst(coordinators).map { Self.peakMB($0) }.max() ?? .nan)
    }

    /// The resident set of the first coordinator now (VmRSS), in MB.
    func coordinatorRSS() -> Double {
        guard let first = lock.withLock({ processes.first }) else { return .nan }
        return Self.peakMB(first, field: "VmRSS:")
    }

    /// The peak resident set of a process (VmHWM), or another field of /proc/PID/status, in MB.
    private static func peakMB(_ process: Process, field: String = "VmHWM:") -> Double {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) }),
            let kb = Double(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { return .nan }
        return kb / 1024
    }
}
