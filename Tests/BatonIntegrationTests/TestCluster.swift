import Baton
import BatonAMQP
import BatonDemo
import BatonPostgres
import BatonStore
import Foundation
import Testing

/// Real services for integration tests: the URLs come from BATON_DATABASE_URL and
/// BATON_AMQP_URL (deploy/local/test.sh points them at a database and vhost of
/// their own); coordinator and workers are the real `baton` binary in child processes.
final class TestCluster: @unchecked Sendable {
    static let databaseURL = ProcessInfo.processInfo.environment["BATON_DATABASE_URL"] ?? "postgresql://postgres@127.0.0.1:5432/baton_test"
    static let amqpURL = ProcessInfo.processInfo.environment["BATON_AMQP_URL"] ?? "amqp://guest:guest@127.0.0.1:5672/baton-test"

    /// A clean schema and empty queues, once per test process.
    static let prepared: Void = {
        let store = try! Store(url: databaseURL)
        try! store.dropSchema()
        try! store.migrate()
        store.close()
        let amqp = try! AMQPConnection(url: amqpURL)
        try! BatonTopology.purge(
            pools: ["default"], procedures: ProcedureRegistry.demo.names + ["test.crash-worker", "test.stubborn-sleep"], on: amqp)
        amqp.close()
    }()

    /// The `baton` executable built beside the test bundle.
    static var batonPath: String {
        if let path = ProcessInfo.processInfo.environment["BATON_BIN"] { return path }
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("baton").path
    }

    private let lock = NSLock()
    private var processes: [Process] = []
    let logDirectory: URL

    init() {
        _ = TestCluster.prepared
        logDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("baton-test-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(at: logDirectory, withIntermediateDirectories: true)
    }

    deinit { stopAll() }

    /// Starts `baton ARGS` with the test URLs and returns the process.
    @discardableResult
    func start(
        _ arguments: [String], name: String, environment extra: [String: String] = [:],
        executable: String = TestCluster.batonPath
    ) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["BATON_DATABASE_URL"] = TestCluster.databaseURL
        env["BATON_AMQP_URL"] = TestCluster.amqpURL
        env["BATON_LOG_LEVEL"] = ProcessInfo.processInfo.environment["BATON_TEST_LOG_LEVEL"] ?? "info"
        env.merge(extra) { _, new in new }
        process.environment = env
        let log = logDirectory.appendingPathComponent("\(name).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        lock.withLock { processes.append(process) }
        return process
    }

    @discardableResult
    func startCoordinator() throws -> Process { try start(["coordinator"], name: "coordinator") }

    @discardableResult
    func startWorker(concurrency: Int = 4, name: String = "worker") throws -> Process {
        try start(["worker", "--demo", "--concurrency", String(concurrency)], name: name)
    }

    /// SIGTERM to every process this cluster started, then SIGKILL after a deadline.
    func stopAll() {
        let all = lock.withLock { processes }
        for p in all where p.isRunning { p.terminate() }
        let deadline = Date().addingTimeInterval(10)
        for p in all {
            while p.isRunning && Date() < deadline { usleep(10_000) }
            if p.isRunning { kill(p.processIdentifier, SIGKILL) }
        }
    }

    func log(_ name: String) -> String {
        (try? String(contentsOf: logDirectory.appendingPathComponent("\(name).log"), encoding: .utf8)) ?? ""
    }

    /// Runs `baton ARGS` to completion and returns its exit code and output.
    static func cli(_ arguments: [String], environment extra: [String: String] = [:]) throws -> (status: Int32, stdout: String, stderr: String) {
        var environment = ["BATON_DATABASE_URL": databaseURL, "BATON_AMQP_URL": amqpURL]
        environment.merge(extra) { _, new in new }
        return try ChildProcess.run(batonPath, arguments, environment: environment)
    }

    /// A store on the test database, once its schema is ready (`prepared`: a test that ran first would
    /// otherwise meet it half reset).
    static func store() throws -> Store {
        _ = prepared
        return try Store(url: databaseURL)
    }

    /// The test database's URL with another database name.
    static func databaseURL(named name: String) throws -> String {
        let query = databaseURL.firstIndex(of: "?") ?? databaseURL.endIndex
        let slash = try #require(databaseURL[..<query].lastIndex(of: "/"))
        return String(databaseURL[..<slash]) + "/" + name + String(databaseURL[query...])
    }

    /// An empty database `name` beside the test database (dropped first if it exists); returns its URL.
    static func freshDatabase(named name: String) throws -> String {
        let admin = try sql()
        defer { admin.close() }
        try admin.execute("drop database if exists \(name) with (force)")
        try admin.execute("create database \(name)")
        return try databaseURL(named: name)
    }

    /// A connection of the test's own, for reading run history with SQL as users do.
    static func sql() throws -> PGConnection {
        _ = prepared
        return try PGConnection(url: databaseURL)
    }

    /// `baton submit` of a graph document; returns the run id.
    static func submit(_ graph: JSON, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let result = try cli(["submit", try GraphFixtures.write(graph), "--json"])
        #expect(result.status == 0, "submit failed: \(result.stderr)", sourceLocation: sourceLocation)
        return try #require(try JSONParser.parse(result.stdout)["run_id"]?.stringValue, sourceLocation: sourceLocation)
    }

    /// A run's nodes by key.
    static func nodes(_ store: Store, _ runID: String) throws -> [String: NodeRow] {
        Dictionary(uniqueKeysWithValues: try store.nodes(ofRun: runID).map { ($0.key, $0) })
    }

    /// Waits (polling the database) until `condition` holds or `seconds` pass.
    /// The id of the worker running as `process`, once its first heartbeat is recorded (within 30 s).
    static func workerID(of process: Process, in store: Store) throws -> String {
        var id = ""
        try waitUntil(30, "the worker to heartbeat") {
            id = try store.liveWorkers(within: 30).first { $0.pid == Int(process.processIdentifier) }?.id ?? ""
            return !id.isEmpty
        }
        return id
    }

    static func waitUntil(_ seconds: Double, _ what: String, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return }
            usleep(50_000)
        }
        Issue.record("timed out after \(seconds) s waiting for \(what)")
        throw TimeoutError(what: what)
    }

    /// Waits for a run to end and returns its final status.
    static func waitForRun(_ id: String, store: Store, seconds: Double = 60) throws -> String {
        var status = ""
        try waitUntil(seconds, "run \(id) to finish") {
            status = try store.progress(ofRun: id).status.rawValue
            return ["succeeded", "failed", "cancelled"].contains(status)
        }
        return status
    }
}

struct TimeoutError: Error { let what: String }

/// Keeps `count` BatonTestWorker processes (the test-only worker that also serves
/// `test.crash-worker`) running, starting a new one whenever one dies, until `stop()`.
final class TestWorkerRestarter: @unchecked Sendable {
    // Safe: `stopped` and `generation` are only touched under `lock`.
    private let lock = NSLock()
    private var stopped = false
    private var generation = 0
    private let cluster: TestCluster
    private let arguments: [String]
    private let environment: [String: String]

    static var executablePath: String {
        URL(fileURLWithPath: TestCluster.batonPath).deletingLastPathComponent().appendingPathComponent("BatonTestWorker").path
    }

    init(cluster: TestCluster, arguments: [String], count: Int, environment: [String: String] = [:]) {
        self.cluster = cluster
        self.arguments = arguments
        self.environment = environment
        for _ in 0..<count { launch() }
    }

    private func launch() {
        let name: String? = lock.withLock {
            guard !stopped else { return nil }
            generation += 1
            return "test-worker-\(generation)"
        }
        guard let name else { return }
        guard let process = try? cluster.start(arguments, name: name, environment: environment, executable: Self.executablePath)
        else { return }
        process.terminationHandler = { [weak self] _ in self?.launch() }
    }

    func stop() { lock.withLock { stopped = true } }
}
