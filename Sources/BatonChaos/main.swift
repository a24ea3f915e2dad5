// The chaos suite (not a unit test): a seeded random graph of fan-outs, chains and
// joins runs on the real services while workers are killed with SIGKILL about every
// second and replaced, the coordinator is killed and restarted, and RabbitMQ and
// PostgreSQL are each restarted once. Then every node must have exactly one recorded
// result, equal to what its inputs determine; nothing lost, duplicated or stuck.
//
//   swift build && .build/debug/BatonChaos                                          # short form (CI): 1,000 nodes
//   .build/debug/BatonChaos --nodes 10000 --seconds-per-node 0.05 --time-limit 1200 # long form
import ArgumentParser
import Baton
import BatonAMQP
import BatonDemo
import BatonStore
import Foundation

struct Options: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "BatonChaos",
        abstract: "The chaos suite: a graph on the real services while workers, the coordinator, RabbitMQ and PostgreSQL are killed or restarted.")

    @Option(help: "Nodes in the graph (at least 20).") var nodes = 1_000
    @Option(help: "Seconds each node works.") var secondsPerNode = 0.3
    @Option(help: "Worker processes (at least 2).") var workers = 3
    @Option(help: "Seed of the graph and the fault choices (default: random).") var seed = UInt64.random(in: 1...UInt64(UInt32.max))
    @Option(help: "Give up after this many seconds (at least 10).") var timeLimit = 300.0
    @Option(help: "The coordinator's --dispatch-window: small by default, so nodes held for room in it go out under the faults too.")
    var dispatchWindow = 16
    @Flag(name: .customLong("no-service-restarts"), help: "Do not restart RabbitMQ and PostgreSQL.") var noServiceRestarts = false

    var restartServices: Bool { !noServiceRestarts }

    func validate() throws {
        guard nodes >= 20, workers >= 2, secondsPerNode >= 0, timeLimit >= 10, seed > 0 else {
            throw ValidationError("--nodes must be at least 20, --workers at least 2, --time-limit at least 10 s, --seed positive")
        }
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("chaos: \(message)\n".utf8))
    exit(2)
}

func say(_ message: String) {
    FileHandle.standardError.write(Data("chaos: \(message)\n".utf8))
}

let options = Options.parseOrExit()
let env = ProcessInfo.processInfo.environment
let databaseURL = env["BATON_DATABASE_URL"] ?? "postgresql://postgres@127.0.0.1:5432/baton_chaos"
let amqpURL = env["BATON_AMQP_URL"] ?? "amqp://guest:guest@127.0.0.1:5672/baton-chaos"
let exe = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
let batonPath = exe.deletingLastPathComponent().appendingPathComponent("baton").path
guard FileManager.default.isExecutableFile(atPath: batonPath) else { fail("no baton binary at \(batonPath): run `swift build` first") }
var root = exe.deletingLastPathComponent()
while root.path != "/" && !FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path) {
    root.deleteLastPathComponent()
}
let servicesScript = root.appendingPathComponent("deploy/local/services.sh").path

/// Runs deploy/local/services.sh with `command` (a service restart). posix_spawn and
/// waitpid, not Foundation's Process: the script leaves a daemon behind, and
/// Process.waitUntilExit was seen to miss the script's own exit then.
func services(_ command: String) {
    var pid: pid_t = 0
    let args: [String] = ["/bin/bash", servicesScript, command]
    let argv: [UnsafeMutablePointer<CChar>?] = args.map { strdup($0) } + [nil]
    defer { for arg in argv { free(arg) } }
    var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    guard posix_spawn(&pid, "/bin/bash", &actions, nil, argv, environ) == 0 else {
        say("cannot run \(servicesScript) \(command)")
        return
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    if status != 0 { say("\(servicesScript) \(command) exited with status \(status)") }
}

/// A store connection that survives a PostgreSQL restart: nil while the database is down.
final class Reconnecting {
    private var store: Store?
    func use<T>(_ body: (Store) throws -> T) -> T? {
        do {
            if store == nil { store = try Store(url: databaseURL) }
            return try body(store!)
        } catch {
            store?.close()
            store = nil
            return nil
        }
    }
}

// Clean slate: schema and queues of the chaos database and vhost.
do {
    let store = try Store(url: databaseURL)
    try store.dropSchema()
    try store.migrate()
    store.close()
    let amqp = try AMQPConnection(url: amqpURL)
    try BatonTopology.purge(pools: ["default"], procedures: ProcedureRegistry.demo.names, on: amqp)
    amqp.close()
} catch {
    fail(
        "cannot prepare \(Store.redacted(databaseURL)) and \(amqpURL): \(error) (run `deploy/local/services.sh up` and `deploy/local/services.sh chaos-env`)"
    )
}

let logs = FileManager.default.temporaryDirectory.appendingPathComponent("baton-chaos-\(options.seed)")
try? FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
var processEnv = env
processEnv["BATON_DATABASE_URL"] = databaseURL
processEnv["BATON_AMQP_URL"] = amqpURL
processEnv["BATON_LOG_LEVEL"] = "warning"
let cluster = ChaosProcesses(batonPath: batonPath, environment: processEnv, logDirectory: logs, dispatchWindow: options.dispatchWindow)
var rng = SplitMix64(seed: options.seed)
let graph = ChaosGraph(nodes: options.nodes, seed: options.seed, secondsPerNode: options.secondsPerNode)
say("seed \(options.seed), \(options.nodes) nodes, \(options.workers) workers, dispatch window \(options.dispatchWindow), logs in \(logs.path)")

var workerKills = 0, coordinatorKills = 0, rabbitRestarts = 0, postgresRestarts = 0
let began = Date()
var runID = ""
var finalStatus = "?"
let db = Reconnecting()
do {
    try cluster.startCoordinator()
    for _ in 0..<options.workers { try cluster.startWorker() }
    let decoded = try GraphDecoder().decode(graph.document)
    guard let submitted = db.use({ try $0.submit(decoded) }) else { fail("cannot submit the graph") }
    runID = submitted.id

    // The faults, paced by the clock while the run is in flight.
    var lastWorkerKill = Date()
    while Date().timeIntervalSince(began) < options.timeLimit {
        let elapsed = Date().timeIntervalSince(began)
        if let status = db.use({ try $0.progress(ofRun: runID).status.rawValue }), ["succeeded", "failed", "cancelled"].contains(status) {
            finalStatus = status
            break
        }
        if Date().timeIntervalSince(lastWorkerKill) >= 1 {
            do {
                try cluster.killWorker(Int(rng.next() % 1000))
                workerKills += 1
            } catch {
                say("could not start a replacement worker (\(error)); trying again next round")
                try? cluster.startWorker()
            }
            lastWorkerKill = Date()
        }
        if coordinatorKills == 0 && elapsed >= 3 {
            cluster.killCoordinator()
            try cluster.startCoordinator()
            coordinatorKills += 1
            say("killed and restarted the coordinator at \(Int(elapsed)) s")
        }
        if options.restartServices && rabbitRestarts == 0 && elapsed >= 6 {
            say("restarting RabbitMQ at \(Int(elapsed)) s")
            services("restart-rabbitmq")
            rabbitRestarts += 1
        }
        if options.restartServices && postgresRestarts == 0 && elapsed >= 12 && rabbitRestarts == 1 {
            say("restarting PostgreSQL at \(Int(Date().timeIntervalSince(began))) s")
            services("restart-postgres")
            postgresRestarts += 1
        }
        usleep(100_000)  // pacing of the fault loop, not synchronisation: the result is read from the database
    }
} catch {
    say("error while inflicting faults: \(error)")
}
let seconds = Date().timeIntervalSince(began)
cluster.stopAll()

// Verification, from the database.
var lost = 0, duplicated = 0, wrong = 0, stuck = 0, overlapping = 0
var problems: [String] = []
let verified: Bool =
    db.use { store in
        // Mutex `chaos`: no two holders' spans (queued .. ended) may overlap, whatever was killed.
        overlapping = Store.overlaps(try store.holdSpans(ofRun: runID, nodes: graph.mutexed))
        if overlapping > 0 { problems.append("\(overlapping) holders of mutex '\(ChaosGraph.mutex)' overlapped another") }
        let nodes = try store.nodes(ofRun: runID)
        let results = try store.successEventCounts(ofRun: runID)
        for node in nodes {
            let status = NodeStatus(rawValue: node.status) ?? .pending
            if !status.isTerminal { stuck += 1; problems.append("\(node.key) stuck \(node.status)"); continue }
            if status != .succeeded { lost += 1; problems.append("\(node.key) \(node.status): \(node.error ?? "")"); continue }
            let recorded = results[node.key] ?? 0
            if recorded != 1 {
                duplicated += recorded > 1 ? 1 : 0; lost += recorded == 0 ? 1 : 0; problems.append("\(node.key) has \(recorded) recorded results")
            }
            if node.output != graph.expected[node.key] {
                wrong += 1
                problems.append(
                    "\(node.key) output \(node.output?.serialized() ?? "none"), expected \(graph.expected[node.key]?.serialized() ?? "?")")
            }
        }
        lost += max(0, graph.expected.count - nodes.count)
        return true
    } ?? false
if !verified { problems.append("could not read the run back from the database") }
for p in problems.prefix(20) { say(p) }

let faults = workerKills + coordinatorKills + rabbitRestarts + postgresRestarts
let allFaults = coordinatorKills == 1 && (!options.restartServices || (rabbitRestarts == 1 && postgresRestarts == 1))
if !allFaults { say("the run ended before every fault was inflicted: use more --nodes or --seconds-per-node") }
let ok = verified && finalStatus == "succeeded" && lost == 0 && duplicated == 0 && wrong == 0 && stuck == 0 && overlapping == 0 && allFaults
print(
    "chaos: faults \(faults) (worker kills \(workerKills), coordinator kills \(coordinatorKills), rabbitmq restarts \(rabbitRestarts), postgres restarts \(postgresRestarts)), nodes \(options.nodes), lost \(lost), duplicated \(duplicated), wrong \(wrong), stuck \(stuck), mutex overlaps \(overlapping), run \(finalStatus), seconds \(Int(seconds.rounded())), seed \(options.seed)"
)
print(ok ? "chaos: 1 passed, 0 failed" : "chaos: 0 passed, 1 failed")
exit(ok ? 0 : 1)
