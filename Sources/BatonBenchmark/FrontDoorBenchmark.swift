import Baton
import BatonClient
import BatonStore
import Foundation

/// `--api N`: a 1-node graph submitted N times in turn through each front door, on one running
/// cluster in one sitting: the HTTP API (`BatonClient`, keep-alive), the Swift library
/// (`Store.submit`) and the CLI (`baton submit`, a process each); submits per second, and submit
/// to result latency (the API's `?wait=`, the library polling the run's status every 2 ms, the
/// CLI's `--wait`), beside a PostgreSQL commit measured the same way.
struct FrontDoorBenchmark {
    let submits: Int
    let batonPath: String
    let databaseURL: String
    let environment: [String: String]

    static let graph: JSON = ["name": "bench-api", "nodes": ["one": ["procedure": "baton.echo", "input": ["text": "hi"]]]]

    func run(cluster: Cluster, store: Store) async throws -> String {
        let port = 18_000 + Int.random(in: 0..<2000)
        try cluster.start(workers: [["worker"], ["server", "--listen", "127.0.0.1:\(port)", "--rate-limit", "off"]])
        defer { cluster.stop() }
        let made = try store.createToken(
            name: "bench-api-\(UInt32.random(in: 0...UInt32.max))", scopes: [.submit, .read], expiresIn: 3600,
            audit: AuditEntry(action: "token.create"))
        let client = BatonClient(server: URL(string: "http://127.0.0.1:\(port)")!, token: made.secret.text)
        try await awaitServer(client)
        let graph = try GraphDecoder().decode(Self.graph)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bench-api-\(getpid()).json")
        try Data(Self.graph.serialized().utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let cliRuns = max(10, submits / 10)

        // Warm-up: connections made, the worker's queue declared, the server's pool open.
        for _ in 0..<10 { _ = try await client.submit(graph: Self.graph, input: nil, name: nil, idempotencyKey: nil, allowUnknownProcedures: false) }
        for _ in 0..<10 { _ = try store.submit(graph) }
        let commit = try commits(submits)

        var lines: [String] = []
        let api = try await Self.rate(submits) { _ = try await client.submit(graph: Self.graph) }
        let library = try await Self.rate(submits) { _ = try store.submit(graph) }
        let viaCLI = try await Self.rate(cliRuns) { try cli(["submit", file.path]) }
        let apiWait = try await Self.latencies(submits / 2) {
            let run = try await client.submit(graph: Self.graph)
            let ended = run.hasEnded ? run : try await client.result(of: run.id, timeout: .seconds(60))
            guard ended.status == .succeeded else { throw BenchmarkError("API run \(run.id) \(ended.status.rawValue)") }
        }
        let libraryWait = try await Self.latencies(submits / 2) {
            let id = try store.submit(graph).id
            while try store.runStatus(id)?.isTerminal != true { usleep(2000) }
        }
        let cliWait = try await Self.latencies(cliRuns) { try cli(["submit", file.path, "--wait"]) }
        // The API's wait is `POST /runs?wait=`: one request from submit to result.
        let apiOneCall = try await Self.latencies(submits / 2) {
            let answer = try await client.send("POST", "/runs?wait=30s", body: ["graph": Self.graph])
            guard answer["status"] == "succeeded" else { throw BenchmarkError("API run \(answer["id"] ?? .null) \(answer["status"] ?? .null)") }
        }
        let commitP50 = Measurement.percentile(commit, 0.5)
        func row(_ door: String, _ perSecond: Double, _ latency: [Double]) -> String {
            let p50 = Measurement.percentile(latency, 0.5)
            return String(
                format: "| %@ | %.0f | %.2f ms (%.0fx a commit) | %.2f ms | %.2f ms |", door, perSecond, 1000 / perSecond,
                1000 / perSecond / (commitP50 * 1000), p50 * 1000, Measurement.percentile(latency, 0.99) * 1000)
        }
        lines.append(
            "front doors, 1-node graph (\(submits) submits in turn; the CLI \(cliRuns)); a PostgreSQL commit (insert, autocommit) p50 \(Measurement.ms(commitP50))"
        )
        lines.append("")
        lines.append("| door | submits/s | per submit | submit to result p50 | p99 |")
        lines.append("|---|---|---|---|---|")
        lines.append(row("HTTP API (BatonClient, keep-alive; result by GET ?wait=)", api, apiWait))
        lines.append(row("HTTP API, one `POST /runs?wait=` call", api, apiOneCall))
        lines.append(row("Swift library (Store.submit; status polled every 2 ms)", library, libraryWait))
        lines.append(row("CLI (`baton submit`, a process each; `--wait`)", viaCLI, cliWait))
        return lines.joined(separator: "\n")
    }

    /// Waits up to 30 s until the server answers.
    func awaitServer(_ client: BatonClient) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if (try? await client.send("GET", "/whoami")) != nil { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw BenchmarkError("baton server did not answer within 30 s")
    }

    /// `count` PostgreSQL commits (one-row inserts) on a connection of their own: seconds each, sorted.
    func commits(_ count: Int) throws -> [Double] {
        let store = try Store(url: databaseURL)
        defer { store.close() }
        return try store.commitTimes(count)
    }

    /// Runs `baton` with `arguments`; throws unless it exits 0.
    func cli(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: batonPath)
        process.arguments = arguments
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchmarkError("baton \(arguments.joined(separator: " ")) exited \(process.terminationStatus)")
        }
    }

    /// Calls per second of `body` called `count` times in turn.
    static func rate(_ count: Int, _ body: () async throws -> Void) async throws -> Double {
        let start = ContinuousClock.now
        for _ in 0..<count { try await body() }
        return Double(count) / seconds(ContinuousClock.now - start)
    }

    /// Seconds each of `count` calls of `body` took, sorted.
    static func latencies(_ count: Int, _ body: () async throws -> Void) async throws -> [Double] {
        var all: [Double] = []
        for _ in 0..<max(1, count) {
            let start = ContinuousClock.now
            try await body()
            all.append(seconds(ContinuousClock.now - start))
        }
        return all.sorted()
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
