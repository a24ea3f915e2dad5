import Foundation

/// The coordinator and worker processes the chaos suite starts, kills and restarts.
final class ChaosProcesses: @unchecked Sendable {
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
    /// The worker that runs as an OS user of its own to be cut off from RabbitMQ: never killed.
    private(set) var cutWorker: Process?
    /// The port of each coordinator's /metrics, by slot.
    private(set) var metricsPorts: [Int] = []
    private var started = 0
    private let pidLock = NSLock()
    private var pids = Set<pid_t>()
    /// The memory budget and commit cut of every coordinator: small, so that the big outputs of the
    /// graph are dropped from memory and read back, and their commits cut by bytes, under the faults.
    static let budgetOptions = ["--memory-budget", "16MiB", "--commit-bytes", "2MiB"]

    init(batonPath: String, environment: [String: String], logDirectory: URL, dispatchWindow: Int) {
        self.batonPath = batonPath
        self.dispatchWindow = dispatchWindow
        self.environment = environment
        self.logDirectory = logDirectory
    }

    private func launch(_ arguments: [String], log name: String, as user: ChaosFirewall.User? = nil) throws -> Process {
        let p = Process()
        let command = (user?.prefix ?? []) + [batonPath] + arguments
        p.executableURL = URL(fileURLWithPath: command[0])
        p.arguments = Array(command.dropFirst())
        p.environment = environment
        let url = logDirectory.appendingPathComponent("\(name).log")
        if !FileManager.default.fileExists(atPath: url.path) { _ = FileManager.default.createFile(atPath: url.path, contents: nil) }
        let handle = try FileHandle(forWritingTo: url)
        handle.seekToEndOfFile()
        p.standardOutput = handle
        p.standardError = handle
        try p.run()
        started += 1
        pidLock.withLock { _ = pids.insert(p.processIdentifier) }
        return p
    }

    /// Starts a coordinator in `slot` (a new slot when it is the count so far), as `user` if given.
    func startCoordinator(_ slot: Int, as user: ChaosFirewall.User? = nil) throws {
        if slot == metricsPorts.count { metricsPorts.append(try Self.freePort()) }
        let p = try launch(
            [
                "coordinator", "--lease", "3", "--dispatch-window", "\(dispatchWindow)", "--partition-lease",
                String(format: "%g", Self.partitionLease), "--metrics", "127.0.0.1:\(metricsPorts[slot])",
            ] + Self.budgetOptions, log: "coordinator-\(slot)", as: user)
        if slot == coordinators.count { coordinators.append(p) } else { coordinators[slot] = p }
    }

    /// A TCP port nothing listens on now (the kernel's pick for port 0).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard fd >= 0, bound else { throw ChaosFirewall.CutError(description: "cannot find a free TCP port for a coordinator's /metrics") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// SIGKILL to the coordinator in `slot`.
    func killCoordinator(_ slot: Int) {
        guard let c = coordinators[slot] else { return }
        kill(c.processIdentifier, SIGKILL)
        c.waitUntilExit()
        reaped(c)
        coordinators[slot] = nil
    }

    /// SIGSTOP (`frozen`) or SIGCONT to the coordinator in `slot`.
    func freezeCoordinator(_ slot: Int, _ frozen: Bool) {
        guard let c = coordinators[slot] else { return }
        kill(c.processIdentifier, frozen ? SIGSTOP : SIGCONT)
    }

    func startWorker() throws {
        workers.append(try launch(Self.workerArguments, log: "worker-\(started)"))
    }

    /// Starts the worker that runs as `user` (to be cut off from RabbitMQ) and is never killed.
    func startCutWorker(as user: ChaosFirewall.User) throws {
        cutWorker = try launch(Self.workerArguments, log: "worker-cut", as: user)
    }

    static let workerArguments = ["worker", "--demo", "--concurrency", "4", "--heartbeat", "0.5"]

    /// SIGKILL to one worker chosen by `pick`, which is then replaced.
    func killWorker(_ pick: Int) throws {
        guard !workers.isEmpty else { return }
        let victim = workers.remove(at: pick % workers.count)
        kill(victim.processIdentifier, SIGKILL)
        victim.waitUntilExit()
        reaped(victim)
        try startWorker()
    }

    private func reaped(_ p: Process) { pidLock.withLock { _ = pids.remove(p.processIdentifier) } }

    /// SIGKILL to every process this started that may still run (at a signal: from any thread).
    func killEverything() {
        for pid in pidLock.withLock({ pids }) {
            kill(pid, SIGCONT)
            kill(pid, SIGKILL)
        }
    }

    func stopAll() {
        let all = workers + coordinators.compactMap { $0 } + (cutWorker.map { [$0] } ?? [])
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
        cutWorker = nil
        pidLock.withLock { pids = [] }
    }
}
