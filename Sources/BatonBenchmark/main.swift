// The benchmark for Baton's hot path (not a test): on the real services, a
// fan-out of N no-op nodes into one join (ordering only, `fan-out`, or injecting
// every output, `fan-in`), and a chain of N nodes. Prints nodes/s from submit to
// the run's end, the submit time, latency percentiles, and the peak RSS of the
// coordinator and of the largest worker. Uses the `baton` binary beside this
// one for the coordinator and worker processes.
//
//   swift build -c release && .build/release/BatonBenchmark --nodes 10000
import ArgumentParser
import Baton
import BatonStore
import Foundation

struct Options: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "BatonBenchmark",
        abstract: "The hot-path benchmark: fan-out and chain graphs on the real services; prints nodes/s and latency percentiles.")

    @Option(help: "Graph sizes, comma separated (each at least 2).") var nodes = "1000,10000"
    @Option(help: "Worker processes.") var workers = 2
    @Option(help: "Slots per worker process.") var concurrency = 32
    @Option(help: "Run only this scenario: fan-out, fan-in or chain.") var only: String?
    @Flag(help: "Only time the wire formats in process (no services): encoding and decoding one hop's messages.") var codec = false

    var sizes: [Int] { nodes.split(separator: ",").compactMap { Int($0) } }
    var workerProcesses: Int { workers }
    var scenarios: Set<String> { only.map { [$0] } ?? ["fan-out", "fan-in", "chain"] }

    func validate() throws {
        guard !sizes.isEmpty, !sizes.contains(where: { $0 < 2 }) else { throw ValidationError("--nodes takes sizes of at least 2, comma separated") }
        guard workers >= 1, concurrency >= 1 else { throw ValidationError("--workers and --concurrency must be at least 1") }
        if let only, !["fan-out", "fan-in", "chain"].contains(only) { throw ValidationError("--only takes fan-out, fan-in or chain") }
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("benchmark: \(message)\n".utf8))
    exit(1)
}

let options = Options.parseOrExit()
let env = ProcessInfo.processInfo.environment
let databaseURL = env["BATON_DATABASE_URL"] ?? "postgresql://postgres@127.0.0.1:5432/baton"
let amqpURL = env["BATON_AMQP_URL"] ?? "amqp://guest:guest@127.0.0.1:5672/%2f"
let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
let batonPath = URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("baton").path
guard FileManager.default.isExecutableFile(atPath: batonPath) else { fail("no baton binary at \(batonPath): build it first") }

nonisolated(unsafe) var children: [Process] = []
func launch(_ arguments: [String]) throws {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: batonPath)
    p.arguments = arguments
    var e = env
    e["BATON_DATABASE_URL"] = databaseURL
    e["BATON_AMQP_URL"] = amqpURL
    e["BATON_LOG_LEVEL"] = env["BATON_BENCH_LOG_LEVEL"] ?? "warning"
    p.environment = e
    p.standardOutput = FileHandle.nullDevice
    try p.run()
    children.append(p)
}
func stopChildren() {
    for p in children where p.isRunning { p.terminate() }
    for p in children { p.waitUntilExit() }
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return .nan }
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
}

func fanOut(_ n: Int) -> JSON {
    var nodes: [(key: String, value: JSON)] = []
    for i in 0..<n { nodes.append(("n-\(i)", ["procedure": "baton.echo", "input": ["i": .int(Int64(i))]])) }
    nodes.append(("join", ["procedure": "baton.echo", "input": ["count": .int(Int64(n))], "after": .array((0..<n).map { .string("n-\($0)") })]))
    return ["name": .string("bench-fan-out-\(n)"), "nodes": .object(JSONObject(nodes))]
}

/// N no-op nodes into one join whose input injects every output.
func fanIn(_ n: Int) -> JSON {
    var nodes: [(key: String, value: JSON)] = []
    for i in 0..<n { nodes.append(("n-\(i)", ["procedure": "baton.echo", "input": ["i": .int(Int64(i))]])) }
    nodes.append(("join", ["procedure": "baton.echo", "input": ["all": .array((0..<n).map { ["$from": .string("n-\($0)"), "select": "/i"] })]]))
    return ["name": .string("bench-fan-in-\(n)"), "nodes": .object(JSONObject(nodes))]
}

/// The peak resident set of a process so far (VmHWM), in MB.
func peakMB(_ process: Process) -> Double {
    guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
        let kb = Double(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    else { return .nan }
    return kb / 1024
}

/// Peak RSS of the coordinator and of the largest worker process.
func peaks() -> String {
    guard let coordinator = children.first else { return "" }
    let worker = children.dropFirst().map(peakMB).max() ?? .nan
    return String(format: "  peak RSS coordinator %.0f MB, worker %.0f MB", peakMB(coordinator), worker)
}

func chain(_ n: Int) -> JSON {
    var nodes: [(key: String, value: JSON)] = [("c-0", ["procedure": "baton.echo", "input": ["hop": 0]])]
    for i in 1..<n {
        nodes.append(
            (
                "c-\(i)",
                ["procedure": "baton.echo", "input": ["hop": .int(Int64(i)), "previous": ["$from": .string("c-\(i - 1)"), "select": "/hop"]]]
            ))
    }
    return ["name": .string("bench-chain-\(n)"), "nodes": .object(JSONObject(nodes))]
}

/// Submits a graph and waits for it; returns (seconds from submit to finish, seconds the submit took
/// (validating and storing), per-node timing rows).
func measure(
    _ document: JSON, store: Store
) throws -> (
    seconds: Double, submit: Double, rows: [(queued: Double, started: Double, finished: Double)]
) {
    let start = Date()
    let graph = try GraphDecoder().decode(document)
    let run = try store.submit(graph)
    let submitted = Date().timeIntervalSince(start)
    while true {
        // Only the run's row: a per-status count over every node would load the database being measured.
        let status = try store.runStatus(run.id)
        if status == .succeeded { break }
        if let status, status.isTerminal { fail("run \(run.id) \(status.rawValue)") }
        if Date().timeIntervalSince(start) > 900 { fail("run \(run.id) did not finish in 15 minutes") }
        usleep(20_000)
    }
    let elapsed = Date().timeIntervalSince(start)
    let rows = try store.nodeTimings(ofRun: run.id).map { ($0.queued, $0.started, $0.finished) }
    return (elapsed, submitted, rows)
}

func ms(_ seconds: Double) -> String { String(format: "%.2f ms", seconds * 1000) }

// Interrupted (Ctrl-C, SIGTERM): stop the coordinator and workers this benchmark started, then exit.
signal(SIGINT, SIG_IGN)
signal(SIGTERM, SIG_IGN)
let interrupts = [SIGINT, SIGTERM].map { DispatchSource.makeSignalSource(signal: $0, queue: .global()) }
for source in interrupts {
    source.setEventHandler {
        stopChildren()
        exit(130)
    }
    source.resume()
}

/// One hop's messages, encoded and decoded `rounds` times: microseconds per operation.
func codecBenchmark(rounds: Int = 20_000) {
    let task = TaskDispatch(
        runID: UUID().uuidString.lowercased(), key: "c-41", attempt: 1, procedure: "baton.echo",
        input: ["hop": 41, "previous": 40, "note": "a short string"], pool: "default", priority: 0)
    let output = EncodedJSON(["hop": 41, "previous": 40, "note": "a short string"])
    let result = AttemptResult<EncodedJSON>(
        key: task.key, attempt: 1, outcome: .succeeded(output), worker: "w-1",
        startedAt: Date(), finishedAt: Date())
    func time(_ name: String, _ body: () throws -> Void) {
        let clock = ContinuousClock()
        let began = clock.now
        do { for _ in 0..<rounds { try body() } } catch { fail("\(name): \(error)") }
        let elapsed = clock.now - began
        let micros = Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) / 1e12
        print(String(format: "codec  %-16@ %8.2f µs", name as NSString, micros / Double(rounds)))
    }
    let taskBody = task.encoded()
    let reportBody = ReportMessage.result(runID: task.runID, result).encoded()
    time("task encode") { _ = task.encoded() }
    time("task decode") { _ = try TaskDispatch(decoding: taskBody) }
    time("report encode") { _ = ReportMessage.result(runID: task.runID, result).encoded() }
    time("report decode") { _ = try ReportMessage(decoding: reportBody).event }
    time("parse (no Codable)") { _ = try JSONParser.parse(reportBody) }
}

if options.codec {
    codecBenchmark()
    exit(0)
}

do {
    let store = try Store(url: databaseURL)
    try store.migrate()
    try launch(["coordinator"])
    for _ in 0..<options.workerProcesses { try launch(["worker", "--concurrency", String(options.concurrency)]) }
    defer { stopChildren() }
    // Warm-up: connections made, queues declared.
    _ = try measure(fanOut(10), store: store)
    print(
        "baton benchmark: \(options.workerProcesses) worker process(es) x \(options.concurrency) slots, coordinator batch 1000, \(ProcessInfo.processInfo.activeProcessorCount) cores"
    )
    for n in options.sizes {
        for scenario in ["fan-out", "fan-in"] where options.scenarios.contains(scenario) {
            let (seconds, submit, rows) = try measure(scenario == "fan-out" ? fanOut(n) : fanIn(n), store: store)
            let waits = rows.map { $0.started - $0.queued }.sorted()
            print(
                String(
                    format: "%-8@  N=%-6d  %7.2f s  %8.0f nodes/s  submit %.2f s", scenario as NSString, n, seconds, Double(n + 1) / seconds, submit)
                    + "  queued->started p50 \(ms(percentile(waits, 0.5)))  p99 \(ms(percentile(waits, 0.99)))" + peaks())
        }
        if options.scenarios.contains("chain") {
            let (seconds, submit, rows) = try measure(chain(n), store: store)
            let hops = zip(rows, rows.dropFirst()).map { $1.started - $0.finished }.sorted()
            print(
                String(format: "chain    N=%-6d  %7.2f s  %8.0f nodes/s  submit %.2f s", n, seconds, Double(n) / seconds, submit)
                    + "  per-hop (finished->next started) p50 \(ms(percentile(hops, 0.5)))  p99 \(ms(percentile(hops, 0.99)))" + peaks())
        }
    }
} catch {
    stopChildren()
    fail("\(error)")
}
