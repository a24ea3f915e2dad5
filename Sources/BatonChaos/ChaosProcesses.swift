import Foundation

/// The coordinator and worker processes the chaos suite starts, kills and restarts.
final class ChaosProcesses {
    let batonPath: String
    let environment: [String: String]
    let logDirectory: URL
    /// The coordinator's `--dispatch-window`.
    let dispatchWindow: Int
    /// The coordinators, by slot (nil while one is down).
    private(set) var coordinators: [Process?] = []
    /// Seconds a coordinator keeps its partitions without renewing them (`--partition-lease`).
    static let partitionLease = 4.0
    private(set) var workers: [Process] = []
    private var started = 0

    init(batonPath: String, environment: [String: String], logDirectory: URL, dispatchWindow: Int) {
        self.batonPath = batonPath
        self.dispatchWindow = dispatchWindow
        self.environment = environment
        self.logDirectory = logDirectory
    }

    private func launch(_ arguments: [String], log name: String) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: batonPath)
        p.arguments = arguments
        p.environment = environment
        let url = logDirectory.appendingPathComponent("\(name).log")
        if !FileManager.default.fileExists(atPath: url.path) { _ = FileManager.default.createFile(atPath: url.path, contents: nil) }
        let handle = try FileHandle(forWritingTo: url)
        handle.seekToEndOfFile()
        p.standardOutput = handle
        p.standardError = handle
        try p.run()
        started += 1
        return p
    }

    /// Starts a coordinator in `slot` (a new slot when it is the count so far).
    func startCoordinator(_ slot: Int) throws {
        let p = try launch(
            [
                "coordinator", "--lease", "3", "--dispatch-window", "\(dispatchWindow)", "--partition-lease",
                String(format: "%g", Self.partitionLease),
            ], log: "coordinator-\(slot)")
        if slot == coordinators.count { coordinators.append(p) } else { coordinators[slot] = p }
    }

    /// SIGKILL to the coordinator in `slot`.
    func killCoordinator(_ slot: Int) {
        guard let c = coordinators[slot] else { return }
        kill(c.processIdentifier, SIGKILL)
        c.waitUntilExit()
        coordinators[slot] = nil
    }

    /// SIGSTOP (`frozen`) or SIGCONT to the coordinator in `slot`.
    func freezeCoordinator(_ slot: Int, _ frozen: Bool) {
        guard let c = coordinators[slot] else { return }
        kill(c.processIdentifier, frozen ? SIGSTOP : SIGCONT)
    }

    func startWorker() throws {
        workers.append(try launch(["worker", "--demo", "--concurrency", "4", "--heartbeat", "0.5"], log: "worker-\(started)"))
    }

    /// SIGKILL to one worker chosen by `pick`, which is then replaced.
    func killWorker(_ pick: Int) throws {
        guard !workers.isEmpty else { return }
        let victim = workers.remove(at: pick % workers.count)
        kill(victim.processIdentifier, SIGKILL)
        victim.waitUntilExit()
        try startWorker()
    }

    func stopAll() {
        let all = workers + coordinators.compactMap { $0 }
        for p in all where p.isRunning {
            kill(p.processIdentifier, SIGCONT)  // a frozen one must be able to stop
            p.terminate()
        }
        let deadline = Date().addingTimeInterval(15)
        for p in all {
            while p.isRunning && Date() < deadline { usleep(20_000) }
            if p.isRunning { kill(p.processIdentifier, SIGKILL) }
        }
        workers = []
        coordinators = []
    }
}
