// The chaos suite (not a unit test): seeded random graphs of fan-outs, chains and joins, every other
// one with a run of big outputs (a 2 MiB output injected whole into four nodes, past the coordinators' small
// memory budget and commit cut), several runs spread over the partitions of several coordinators,
// run on the real services while workers are killed with SIGKILL about every second and replaced,
// a coordinator is killed with SIGKILL and restarted, another is stopped (SIGSTOP) for longer than
// its partitions' lease and then woken, one more coordinator joins mid-run, and RabbitMQ and
// PostgreSQL are each restarted once, and the busiest task queue is deleted once and purged once
// under load (as an operator's `rabbitmqctl delete_queue` / `purge_queue`). Single processes are cut
// off by iptables rules on OS users of their own (ChaosFirewall; loopback only, removed at the end,
// also on failure, SIGINT and SIGTERM): a worker from RabbitMQ, a coordinator from PostgreSQL (it
// must lose its partitions within the cut while nodes go on succeeding, and take partitions back
// after the heal), then the coordinator added mid-run from RabbitMQ; for 8 s each, one outbound,
// one inbound, one both ways (by the seed). Results are forged by hand for running nodes (no token,
// a wrong token) three times; the coordinators must count refusals (baton_reports_refused_total).
// On --rabbit-cluster (nodes of the suite's own: alarms are broker-global) a memory alarm and then a
// disk alarm block publishers for 5 s each. Then every node must have exactly one recorded result,
// equal to what its inputs determine; nothing lost, duplicated or stuck; and the mutex that
// spans the runs (and so the coordinators) never had two holders at once.
//
//   swift build && .build/debug/BatonChaos                                          # short form (CI): 1,000 nodes, 3 coordinators
//   .build/debug/BatonChaos --nodes 10000 --seconds-per-node 0.05 --time-limit 1200 # long form
//   .build/debug/BatonChaos --rabbit-cluster        # on three RabbitMQ nodes with quorum queues: a node is killed instead
//   .build/debug/BatonChaos --no-network-cuts       # not as root: without the iptables cuts
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
    @Option(help: "Coordinator processes at the start (1 to 8); one more joins mid-run.") var coordinators = 3
    @Option(help: "Runs the nodes are split into, spread over the partitions (default: twice the coordinators, at least 4).")
    var runs: Int?
    @Option(help: "Seed of the graph and the fault choices (default: random).") var seed = UInt64.random(in: 1...UInt64(UInt32.max))
    @Option(help: "Give up after this many seconds (at least 10).") var timeLimit = 300.0
    @Option(help: "The coordinator's --dispatch-window: small by default, so nodes held for room in it go out under the faults too.")
    var dispatchWindow = 16
    @Flag(name: .customLong("no-service-restarts"), help: "Do not restart RabbitMQ and PostgreSQL.") var noServiceRestarts = false
    @Flag(
        name: .customLong("no-network-cuts"),
        help: "Do not cut single processes off from PostgreSQL or RabbitMQ (the cuts need root, iptables, useradd and setpriv).")
    var noNetworkCuts = false
    @Flag(
        name: .customLong("rabbit-cluster"),
        help:
            "Run on the three-node RabbitMQ cluster of deploy/local/rabbit-cluster.sh (started afresh) with quorum queues; the RabbitMQ fault kills -9 the node leading the task queue, then starts it again."
    )
    var rabbitCluster = false

    var restartServices: Bool { !noServiceRestarts }
    var runCount: Int { runs ?? min(max(4, 2 * coordinators), nodes / 20) }

    func validate() throws {
        guard nodes >= 20, workers >= 2, secondsPerNode >= 0, timeLimit >= 10, seed > 0 else {
            throw ValidationError("--nodes must be at least 20, --workers at least 2, --time-limit at least 10 s, --seed positive")
        }
        guard (1...8).contains(coordinators) else { throw ValidationError("--coordinators must be from 1 to 8, got \(coordinators)") }
        guard (1...nodes / 20).contains(runCount) else {
            throw ValidationError("--runs must be from 1 to \(nodes / 20) (each run has at least 20 of the --nodes), got \(runCount)")
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
ChaosCleanup.shared.install()
let env = ProcessInfo.processInfo.environment
let databaseURL = env["BATON_DATABASE_URL"] ?? "postgresql://postgres@127.0.0.1:5432/baton_chaos"
var amqpURL = env["BATON_AMQP_URL"] ?? "amqp://guest:guest@127.0.0.1:5672/baton-chaos"
let exe = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
let batonPath = exe.deletingLastPathComponent().appendingPathComponent("baton").path
guard FileManager.default.isExecutableFile(atPath: batonPath) else { fail("no baton binary at \(batonPath): run `swift build` first") }
var root = exe.deletingLastPathComponent()
while root.path != "/" && !FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path) {
    root.deleteLastPathComponent()
}

/// Runs deploy/local/NAME with `arguments` (a service restart, a node kill); returns its exit status
/// and stdout.
@MainActor @discardableResult
func script(_ name: String, _ arguments: [String]) -> (status: Int32, stdout: String) {
    let path = root.appendingPathComponent("deploy/local/\(name)").path
    let result = Command.run(["/bin/bash", path] + arguments)
    if result.status != 0 { say("\(path) \(arguments.joined(separator: " ")) exited with status \(result.status)") }
    return (result.status, result.stdout)
}

@MainActor func services(_ command: String) { script("services.sh", [command]) }

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

// Clean slate: schema and queues of the chaos database and vhost (or a cluster started afresh).
if options.rabbitCluster {
    guard script("rabbit-cluster.sh", ["reset"]).status == 0, script("rabbit-cluster.sh", ["up"]).status == 0 else {
        fail("cannot start the RabbitMQ cluster (deploy/local/rabbit-cluster.sh up)")
    }
    amqpURL = script("rabbit-cluster.sh", ["urls"]).stdout
    let clusterScript = root.appendingPathComponent("deploy/local/rabbit-cluster.sh").path
    ChaosCleanup.shared.add(last: true) { _ = Command.run(["/bin/bash", clusterScript, "down"]) }
}
do {
    let store = try Store(url: databaseURL)
    try store.dropSchema()
    // Fewer partitions on the cluster: each is a replicated queue.
    _ = try store.migrate(partitions: options.rabbitCluster ? 16 : nil, queueType: options.rabbitCluster ? "quorum" : nil)
    store.close()
    let amqp = try AMQPConnection(url: amqpURL)
    if options.rabbitCluster {
        try BatonTopology.declareCommon(on: amqp, queueType: .quorum)
        try BatonTopology.markQueueType(.quorum, on: amqp)
    } else {
        try BatonTopology.purge(pools: ["default"], procedures: ProcedureRegistry.demo.names, on: amqp)
    }
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
ChaosCleanup.shared.add { cluster.killEverything() }
var rng = SplitMix64(seed: options.seed)
let killed = Int(rng.next() % UInt64(options.coordinators))
let frozen = options.coordinators == 1 ? 0 : (killed + 1) % options.coordinators

// Network cuts: one coordinator (neither killed nor stopped; the one added mid-run if there is no
// such) from PostgreSQL, the worker that is never killed from RabbitMQ, and the coordinator added
// mid-run from RabbitMQ, each in one direction or both (all three kinds in every run, by the seed).
let cutSeconds = 8.0
let postgresVictim = options.coordinators >= 3 ? (killed + 2) % options.coordinators : options.coordinators
var cuts: [CutFault] = []
var firewall: ChaosFirewall?
var cutUsers: (postgres: ChaosFirewall.User, broker: ChaosFirewall.User, worker: ChaosFirewall.User)?
if !options.noNetworkCuts {
    do {
        let postgresPorts = try ChaosFirewall.loopbackPorts(of: databaseURL, defaultPort: 5432)
        let brokerPorts = try ChaosFirewall.loopbackPorts(of: amqpURL, defaultPort: 5672)
        let made = try ChaosFirewall()
        firewall = made
        ChaosCleanup.shared.add { made.removeAll() }
        let postgresUser = try made.makeUser("pg")
        let users = (
            postgres: postgresUser, broker: options.coordinators >= 3 ? try made.makeUser("mq") : postgresUser, worker: try made.makeUser("wk")
        )
        cutUsers = users
        var directions = ChaosFirewall.Direction.allCases
        for i in stride(from: directions.count - 1, to: 0, by: -1) { directions.swapAt(i, Int(rng.next() % UInt64(i + 1))) }
        cuts = [
            CutFault("worker-cut from RabbitMQ", user: users.worker, ports: brokerPorts, directions[0], start: 2, seconds: cutSeconds),
            CutFault(
                "coordinator \(postgresVictim) from PostgreSQL", user: users.postgres, ports: postgresPorts, directions[1], start: 4,
                seconds: cutSeconds),
            CutFault(
                "coordinator \(options.coordinators) from RabbitMQ", user: users.broker, ports: brokerPorts, directions[2], start: 12,
                seconds: cutSeconds),
        ]
    } catch {
        fail("\(error)")
    }
}
let postgresCut = cuts.count > 1 ? cuts[1] : nil
let graphs = (0..<options.runCount).map { i in
    // Every other run carries the big outputs: enough for the coordinators' memory budget, at half the bytes.
    ChaosGraph(
        nodes: options.nodes / options.runCount, seed: options.seed &+ UInt64(i), secondsPerNode: options.secondsPerNode, bigOutputs: i % 2 == 0)
}
say(
    "seed \(options.seed), \(options.nodes) nodes in \(options.runCount) runs, \(options.coordinators) coordinators, \(options.workers) workers, dispatch window \(options.dispatchWindow), logs in \(logs.path)"
)

var workerKills = 0, coordinatorKills = 0, coordinatorFreezes = 0, coordinatorsAdded = 0, rabbitRestarts = 0, postgresRestarts = 0
var queueLosses = 0
var problems: [String] = []
var forgeRounds = 0, forged = 0
let forgeAt = [6.0, 13, 20]
var alarms: [BrokerAlarm] = []
let alarmAt = [17.0, 23], alarmSeconds = 5.0
var alarmRaisedAt: Double?
var succeededNow = 0, busiestRun = 0
/// The PostgreSQL cut's victim: the partitions it held when cut, the nodes succeeded then, and when it took partitions back.
var heldAtCut: Set<Int> = [], succeededAtCut = 0, takenBackAt: Double?
let began = Date()
var runIDs: [String] = []
var finalStatus = "?"
let db = Reconnecting()

/// The partitions the coordinator in `slot` holds now (by its pid, the middle of its id `<host>-<pid>-<hex>`).
@MainActor func heldPartitions(of slot: Int) -> Set<Int> {
    guard slot < cluster.coordinators.count, let pid = cluster.coordinators[slot]?.processIdentifier else { return [] }
    let leases = db.use { try $0.partitionLeases() } ?? []
    return Set(leases.filter { !$0.isFree && $0.owner.flatMap(ownerPid) == pid }.map(\.partition))
}

func ownerPid(_ owner: String) -> Int32? {
    let parts = owner.split(separator: "-")
    return parts.count >= 3 ? Int32(parts[parts.count - 2]) : nil
}

/// At the heal of the PostgreSQL cut: the victim lost every partition it held (its leases ran out
/// on the database's clock: from then on its commits are fenced off), and nodes went on succeeding.
/// The others take the partitions at their next balance, unless they are down themselves (the
/// stopped one, the one cut off from RabbitMQ): how many they took is told, not required.
@MainActor func checkLost(_ held: Set<Int>, by slot: Int, succeededDuring: Int) {
    let pid = cluster.coordinators[slot]?.processIdentifier
    let leases = db.use { try $0.partitionLeases() }.map { $0.filter { held.contains($0.partition) } } ?? []
    let kept = leases.filter { !$0.isFree && $0.owner.flatMap(ownerPid) == pid }.map(\.partition)
    if !kept.isEmpty {
        problems.append("coordinator \(slot) still held partitions \(kept) after \(Int(cutSeconds)) s cut off from PostgreSQL")
    }
    if succeededDuring <= 0 { problems.append("no node succeeded while coordinator \(slot) was cut off from PostgreSQL") }
    let taken = leases.filter { !$0.isFree && $0.owner.flatMap(ownerPid) != pid }.count
    say(
        "during the cut of coordinator \(slot) from PostgreSQL, it lost \(held.count - kept.count) of its \(held.count) partitions, the others took \(taken), and \(succeededDuring) nodes succeeded"
    )
}

do {
    for slot in 0..<options.coordinators { try cluster.startCoordinator(slot, as: slot == postgresVictim ? cutUsers?.postgres : nil) }
    if let user = cutUsers?.worker { try cluster.startCutWorker(as: user) }
    for _ in 0..<(options.workers - (cutUsers == nil ? 0 : 1)) { try cluster.startWorker() }
    for graph in graphs {
        let decoded = try GraphDecoder().decode(graph.document)
        guard let submitted = db.use({ try $0.submit(decoded) }) else { fail("cannot submit the graph") }
        runIDs.append(submitted.id)
    }
    let partitions = db.use { try $0.partitionCount() } ?? 64
    let forger = ReportForger(amqpURL: amqpURL, partitions: partitions)
    var frozenAt: Date?
    var killedNode: String?

    // The faults, paced by the clock while the run is in flight.
    var lastWorkerKill = Date()
    while Date().timeIntervalSince(began) < options.timeLimit {
        let elapsed = Date().timeIntervalSince(began)
        if let progress = db.use({ store in try runIDs.map { try store.progress(ofRun: $0) } }) {
            succeededNow = progress.reduce(0) { $0 + ($1.counts[.succeeded] ?? 0) }
            busiestRun = progress.indices.max { (progress[$0].counts[.running] ?? 0) < (progress[$1].counts[.running] ?? 0) } ?? 0
            if progress.allSatisfy(\.status.isTerminal) {
                finalStatus = progress.allSatisfy { $0.status == .succeeded } ? "succeeded" : "failed"
                break
            }
        }
        if let firewall {
            for cut in cuts {
                let change = cut.step(at: elapsed, firewall)
                guard cut === postgresCut, let change else { continue }
                let held = heldPartitions(of: postgresVictim)
                if change == .struck {
                    heldAtCut = held
                    succeededAtCut = succeededNow
                    say("coordinator \(postgresVictim) held partitions \(heldAtCut.sorted()) when cut off from PostgreSQL")
                } else {
                    checkLost(heldAtCut, by: postgresVictim, succeededDuring: succeededNow - succeededAtCut)
                }
            }
            if postgresCut?.healedAt != nil && takenBackAt == nil && !heldPartitions(of: postgresVictim).isEmpty { takenBackAt = elapsed }
        }
        if forgeRounds < forgeAt.count && elapsed >= forgeAt[forgeRounds] && alarmRaisedAt == nil {  // not into a blocked broker
            let runID = runIDs[busiestRun]
            let count = db.use { try forger.forge(runID: runID, nodes: $0.nodes(ofRun: runID), limit: 4) } ?? 0
            say("forged \(count) result report(s) (no token, a wrong token) for running nodes of run \(runID) at \(Int(elapsed)) s")
            forged += count
            forgeRounds += 1
        }
        // Memory, then disk, alarms: only on the suite's own cluster, once its killed node is back.
        if options.rabbitCluster && alarms.count < alarmAt.count && alarmRaisedAt == nil && killedNode == nil
            && (rabbitRestarts == 1 || !options.restartServices)
            && elapsed >= alarmAt[alarms.count]
        {
            let alarm = BrokerAlarm(
                alarms.isEmpty ? .memory : .disk, script: root.appendingPathComponent("deploy/local/rabbit-cluster.sh").path, node: 1)
            ChaosCleanup.shared.add { alarm.clear() }
            alarms.append(alarm)
            if alarm.raise() { say("raised a \(alarm.kind.rawValue) alarm on RabbitMQ node 1 at \(Int(elapsed)) s") }
            alarmRaisedAt = elapsed
        }
        if let raised = alarmRaisedAt, elapsed >= raised + alarmSeconds, let alarm = alarms.last {
            if alarm.clear() { say("cleared the \(alarm.kind.rawValue) alarm at \(Int(elapsed)) s") }
            alarmRaisedAt = nil
        }
        // No worker is killed while an alarm blocks publishers: the results it holds back wait unacked,
        // and every kill would count one more delivery of those tasks, towards the delivery limit
        // (a task dead-lettered for deaths it only saw; the simulator's seeds 193 and 5251).
        if alarmRaisedAt == nil, Date().timeIntervalSince(lastWorkerKill) >= 1 {
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
            cluster.killCoordinator(killed)
            try cluster.startCoordinator(killed)
            coordinatorKills += 1
            say("killed coordinator \(killed) with SIGKILL and restarted it at \(Int(elapsed)) s")
        }
        // Stopped for longer than its partitions' lease: the others take them; woken, it must write nothing.
        if coordinatorFreezes == 0 && elapsed >= 3.5 {
            cluster.freezeCoordinator(frozen, true)
            frozenAt = Date()
            coordinatorFreezes += 1
            say("stopped coordinator \(frozen) with SIGSTOP at \(Int(elapsed)) s")
        }
        if let at = frozenAt, Date().timeIntervalSince(at) >= ChaosProcesses.partitionLease + 2.5 {
            cluster.freezeCoordinator(frozen, false)
            frozenAt = nil
            say("woke coordinator \(frozen) with SIGCONT at \(Int(elapsed)) s")
        }
        if coordinatorsAdded == 0 && elapsed >= 5 {  // before the service restarts: a coordinator that cannot connect at start exits
            try cluster.startCoordinator(options.coordinators, as: cutUsers?.broker)
            coordinatorsAdded += 1
            say("added coordinator \(options.coordinators) at \(Int(elapsed)) s")
        }
        // The busiest task queue deleted, then purged, under load: what it held must be found and sent again.
        if !options.rabbitCluster && ((queueLosses == 0 && elapsed >= 7) || (queueLosses == 1 && elapsed >= 9)) {
            let queue = BatonTopology.taskQueue(pool: "default", procedure: "demo.slow-add")
            do {
                let amqp = try AMQPConnection(url: amqpURL)
                defer { amqp.close() }
                let count = queueLosses == 0 ? try amqp.deleteQueue(name: queue) : try amqp.purgeQueue(name: queue)
                say("\(queueLosses == 0 ? "deleted" : "purged") task queue \(queue) (\(count) tasks) at \(Int(elapsed)) s")
            } catch {
                say("could not \(queueLosses == 0 ? "delete" : "purge") task queue \(queue): \(error)")
            }
            queueLosses += 1
        }
        // After the stopped coordinator woke, so that it wakes to working services and finds its partitions taken.
        if options.restartServices && rabbitRestarts == 0 && elapsed >= 11 && coordinatorFreezes == 1 && frozenAt == nil {
            if options.rabbitCluster {
                // The node leading the busiest task queue dies; the others go on, then it comes back.
                let leader = script("rabbit-cluster.sh", ["leader", BatonTopology.taskQueue(pool: "default", procedure: "demo.slow-add")])
                let node = leader.status == 0 ? leader.stdout : "1"
                say("killed RabbitMQ node \(node) (leading the task queue) with SIGKILL at \(Int(elapsed)) s")
                script("rabbit-cluster.sh", ["kill", node])
                killedNode = node
            } else {
                say("restarting RabbitMQ at \(Int(elapsed)) s")
                services("restart-rabbitmq")
            }
            rabbitRestarts += 1
        }
        if let node = killedNode, elapsed >= 15 {
            say("starting RabbitMQ node \(node) again at \(Int(elapsed)) s")
            script("rabbit-cluster.sh", ["start", node])
            killedNode = nil
        }
        if options.restartServices && postgresRestarts == 0 && elapsed >= 16 && rabbitRestarts == 1 {
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
let cutsDone = cuts.allSatisfy { $0.healedAt != nil }
if let firewall { for cut in cuts { cut.heal(at: Date().timeIntervalSince(began), firewall) } }
for alarm in alarms { alarm.clear() }
// The coordinator cut off from PostgreSQL takes partitions back after the heal (waited for up to 30 s past it).
if let healed = postgresCut?.healedAt {
    while takenBackAt == nil && Date().timeIntervalSince(began) < healed + 30 {
        if !heldPartitions(of: postgresVictim).isEmpty { takenBackAt = Date().timeIntervalSince(began) } else { usleep(200_000) }
    }
    if let back = takenBackAt {
        say("coordinator \(postgresVictim) took partitions back \(String(format: "%.1f", back - healed)) s after its cut healed")
    } else {
        problems.append("coordinator \(postgresVictim) held no partition 30 s after its cut from PostgreSQL healed")
    }
}
let exited = cluster.coordinators.enumerated().filter { $0.element?.isRunning == false }.map(\.offset)
if cluster.cutWorker?.isRunning == false { problems.append("the worker cut off from RabbitMQ exited: see \(logs.path)/worker-cut.log") }
let scraped = ScrapedMetrics(ports: cluster.metricsPorts.enumerated().filter { cluster.coordinators[$0.offset]?.isRunning == true }.map(\.element))
let refused = Int(scraped.sum("baton_reports_refused_total"))
let refusedWrong = Int(scraped.sum("baton_reports_refused_total", label: #"reason="wrong_token""#))
let offloaded = Int(scraped.sum("baton_coordinator_outputs_offloaded_bytes_total"))
if forged == 0 {
    problems.append("no report could be forged (no node was running at \(forgeAt.map { "\(Int($0)) s" }.joined(separator: ", "))?)")
} else if refused == 0 {
    problems.append("\(forged) reports were forged and the coordinators counted no refusal (baton_reports_refused_total)")
}
let faultProblems = problems.count
cluster.stopAll()
if options.rabbitCluster { script("rabbit-cluster.sh", ["down"]) }

// Verification, from the database.
var lost = 0, duplicated = 0, wrong = 0, stuck = 0, overlapping = 0
let verified: Bool =
    db.use { store in
        // Mutex `chaos`, shared by every run (and so by their coordinators): no two holders' spans
        // (queued .. ended) may overlap, whatever was killed.
        let spans = try zip(runIDs, graphs).flatMap { id, graph in try store.holdSpans(ofRun: id, nodes: graph.mutexed) }
        overlapping = Store.overlaps(spans)
        if overlapping > 0 { problems.append("\(overlapping) holders of mutex '\(ChaosGraph.mutex)' overlapped another") }
        for (runID, graph) in zip(runIDs, graphs) { try check(runID, graph, store) }
        return true
    } ?? false

/// Counts what is wrong with one run's nodes.
@MainActor func check(_ runID: String, _ graph: ChaosGraph, _ store: Store) throws {
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
}
if !verified { problems.append("could not read the run back from the database") }
for slot in exited { problems.append("coordinator \(slot) exited before the end: see \(logs.path)/coordinator-\(slot).log") }
for p in problems.prefix(20) { say(p) }

let faults =
    workerKills + coordinatorKills + coordinatorFreezes + coordinatorsAdded + rabbitRestarts + postgresRestarts + queueLosses
    + cuts.filter { $0.struckAt != nil }.count + alarms.count + forgeRounds
let allFaults =
    coordinatorKills == 1 && coordinatorFreezes == 1 && coordinatorsAdded == 1
    && (!options.restartServices || (rabbitRestarts == 1 && postgresRestarts == 1)) && cutsDone && forgeRounds == forgeAt.count
    && (!options.rabbitCluster || alarms.count == alarmAt.count)
let cutSummary =
    cuts.isEmpty
    ? "network cuts 0" : "network cuts \(cuts.count) (" + cuts.map { "\($0.name): \($0.direction.rawValue)" }.joined(separator: "; ") + ")"
let alarmSummary =
    options.rabbitCluster ? "broker alarms \(alarms.map(\.kind.rawValue).joined(separator: ", "))" : "broker alarms 0 (on --rabbit-cluster only)"
if !allFaults { say("the run ended before every fault was inflicted: use more --nodes or --seconds-per-node") }
let ok =
    verified && faultProblems == 0 && exited.isEmpty && finalStatus == "succeeded" && lost == 0 && duplicated == 0 && wrong == 0 && stuck == 0
    && overlapping == 0
    && allFaults
print(
    "chaos: faults \(faults) (worker kills \(workerKills), coordinator kills \(coordinatorKills), coordinator stops past the lease \(coordinatorFreezes), coordinators added \(coordinatorsAdded), \(options.rabbitCluster ? "rabbitmq node kills" : "rabbitmq restarts") \(rabbitRestarts), postgres restarts \(postgresRestarts), task queues lost \(queueLosses), \(cutSummary), \(alarmSummary), forged reports \(forged) refused \(refused) (\(refused - refusedWrong) without a token, \(refusedWrong) with a wrong one)), big outputs offloaded \(offloaded) bytes, nodes \(options.nodes), runs \(options.runCount), coordinators \(options.coordinators)+1, lost \(lost), duplicated \(duplicated), wrong \(wrong), stuck \(stuck), mutex overlaps \(overlapping), run \(finalStatus), seconds \(Int(seconds.rounded())), seed \(options.seed)"
)
print(ok ? "chaos: 1 passed, 0 failed" : "chaos: 0 passed, 1 failed")
exit(ok ? 0 : 1)
