// The benchmark for Baton's hot path (not a test): on the real services, a fan-out of N no-op
// nodes into one join (ordering only, `fan-out`, or injecting every output, `fan-in`), and a
// chain of N nodes, each `--rounds` times, on a cluster with the default settings (one
// coordinator, one `baton worker` without flags) and on a tuned one (`--workers` x
// `--concurrency`). For each round it prints nodes/s from submit to the run's end, the submit
// time, latency percentiles, the peak RSS of the coordinator and of the largest worker, and the
// AMQP messages and PostgreSQL rows written per node; before that, the raw broker hop (persistent
// publish, confirm, deliver, ack) through the same library and broker. It ends with a Markdown
// table of the medians. Uses the `baton` binary beside this one for the cluster's processes.
//
//   swift build -c release --product BatonBenchmark && swift build -c release --product baton
//   .build/release/BatonBenchmark --nodes 10000 --rounds 3 --cluster both
//   .build/release/BatonBenchmark --api 500          # submits/s and latency: HTTP API, Swift library, CLI
//   .build/release/BatonBenchmark --soak 1000000 --workers 2 --concurrency 16   # a day of work with --retention
import Baton
import BatonAMQP
import BatonStore
import Foundation

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("benchmark: \(message)\n".utf8))
    exit(1)
}

let options = Options.parseOrExit()
if options.codec {
    do { try CodecBenchmark.run() } catch { fail("\(error)") }
    exit(0)
}

let env = ProcessInfo.processInfo.environment
let databaseURL = env["BATON_DATABASE_URL"] ?? "postgresql://postgres@127.0.0.1:5432/baton"
let amqpURL = env["BATON_AMQP_URL"] ?? "amqp://guest:guest@127.0.0.1:5672/%2f"
let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
let batonPath = URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("baton").path
guard FileManager.default.isExecutableFile(atPath: batonPath) else { fail("no baton binary at \(batonPath): build it first") }
let cluster = Cluster(batonPath: batonPath, databaseURL: databaseURL, amqpURL: amqpURL, logLevel: env["BATON_BENCH_LOG_LEVEL"] ?? "warning")

// Interrupted (Ctrl-C, SIGTERM): stop the coordinator and workers this benchmark started, then exit.
signal(SIGINT, SIG_IGN)
signal(SIGTERM, SIG_IGN)
let interrupts = [SIGINT, SIGTERM].map { DispatchSource.makeSignalSource(signal: $0, queue: .global()) }
for source in interrupts {
    source.setEventHandler {
        cluster.stop()
        exit(130)
    }
    source.resume()
}

/// Submits `runs` copies of a graph at once and waits for them all; returns (seconds from the first
/// submit to the last run's end, seconds the submits took (validating and storing), per-node timing rows).
func measure(
    _ document: JSON, runs: Int = 1, store: Store
) throws -> (
    seconds: Double, submit: Double, rows: [(queued: Double, started: Double, finished: Double)]
) {
    let start = Date()
    let graph = try GraphDecoder().decode(document)
    let ids = try (0..<runs).map { _ in try store.submit(graph).id }
    let submitted = Date().timeIntervalSince(start)
    var waiting = ids
    while let id = waiting.first {
        // Only the runs' rows: a per-status count over every node would load the database being measured.
        let status = try store.runStatus(id)
        if status == .succeeded {
            waiting.removeFirst()
            continue
        }
        if let status, status.isTerminal { throw BenchmarkError("run \(id) \(status.rawValue)") }
        if Date().timeIntervalSince(start) > 900 { throw BenchmarkError("run \(id) did not finish in 15 minutes") }
        usleep(20_000)
    }
    let elapsed = Date().timeIntervalSince(start)
    return (elapsed, submitted, try ids.flatMap { try store.nodeTimings(ofRun: $0) })
}

/// Waits up to 30 s until `count` coordinators share every partition.
func awaitCoordinators(_ count: Int, store: Store) throws {
    let partitions = try store.partitionCount()
    let deadline = Date().addingTimeInterval(30)
    while Date() < deadline {
        let live = try store.coordinators()
        if live.count == count && live.reduce(0, { $0 + $1.partitions.count }) == partitions
            && live.allSatisfy({ $0.partitions.count >= partitions / count })
        {
            return
        }
        usleep(200_000)
    }
    throw BenchmarkError("\(count) coordinator(s) did not share the \(partitions) partitions within 30 s")
}

/// The slots each worker process of the running cluster registered with, as it reported them
/// in its heartbeats; waits up to 15 s for all of them.
func workerSlots(_ rows: RowCounter) throws -> [Int] {
    let pids = cluster.workerPIDs
    let deadline = Date().addingTimeInterval(15)
    while true {
        let slots = try rows.slots(ofWorkerPIDs: pids)
        if slots.count == pids.count || Date() > deadline { return slots }
        usleep(200_000)
    }
}

do {
    let store = try Store(url: databaseURL)
    try store.migrate()
    let rows = try RowCounter(databaseURL: databaseURL)
    // A clean slate: runs and tasks an interrupted benchmark left would be scheduled and run again during the measurement.
    let dropped = try rows.dropBenchmarkRuns()
    do {
        let broker = try AMQPConnection(url: amqpURL, connectionName: "baton-benchmark-setup")
        try BatonTopology.purge(pools: ["default"], procedures: ["baton.echo"], on: broker)
        broker.close()
    }
    let vhost = try AMQPURL(amqpURL).vhost
    let messages = MessageCounter(vhost: vhost, node: env["BATON_RMQ_NODE"] ?? "baton@localhost")
    let canCountMessages = messages.snapshot() != nil
    print(
        "baton benchmark: \(ProcessInfo.processInfo.activeProcessorCount) cores, \(options.rounds) round(s) per scenario, vhost '\(vhost)', "
            + "messages counted \(canCountMessages ? "per queue through rabbitmqctl" : "n/a (rabbitmqctl eval failed)"), "
            + "\(dropped) earlier benchmark run(s) dropped")

    if let submits = options.api {
        let doors = FrontDoorBenchmark(submits: submits, batonPath: batonPath, databaseURL: databaseURL, environment: cluster.environment)
        print(try await doors.run(cluster: cluster, store: store))
        exit(0)
    }

    if let total = options.soak {
        try rows.dropWorkers()
        let samples = try Soak(total: total, retention: options.soakRetention).run(
            cluster: cluster, store: store, workers: ClusterKind.tuned.workerArguments(options))
        print(Soak.summary(samples, total: total))
        exit(0)
    }

    var rawHops: [Double]?
    do {
        let hops = try RawHop.measure(amqpURL: amqpURL, count: options.rawHops)
        rawHops = hops
        print(
            "raw broker hop (persistent publish + confirm, deliver, ack; \(hops.count) in turn): p50 \(Measurement.ms(Measurement.percentile(hops, 0.5)))"
                + "  p99 \(Measurement.ms(Measurement.percentile(hops, 0.99)))")
    } catch {
        print("raw broker hop: n/a (\(error))")
    }

    var measurements: [Measurement] = []
    for (kind, coordinators) in options.clusters.flatMap({ kind in options.coordinatorCounts.map { (kind, $0) } }) {
        try rows.dropWorkers()
        try cluster.start(coordinators: coordinators, workers: kind.workerArguments(options))
        defer { cluster.stop() }
        try awaitCoordinators(coordinators, store: store)
        // Warm-up: connections made, queues declared, workers registered.
        _ = try measure(Scenario.fanOut.graph(10), store: store)
        let slots = try workerSlots(rows)
        var label: String
        switch kind {
        case .default: label = "default \(slots.count)x\(slots.first.map(String.init) ?? "?")"
        case .tuned: label = "tuned \(options.workers)x\(options.concurrency)"
        }
        if options.coordinatorCounts != [1] { label += " \(coordinators)c" }
        if options.runs > 1 { label += " \(options.runs)r" }
        print(
            "cluster \(label): \(coordinators) coordinator(s) with their defaults, \(options.runs) run(s) per scenario, \(slots.count) worker process(es) with "
                + "\(slots.map(String.init).joined(separator: ", ")) slots (as the workers report them)"
                + (kind == .default ? ", started as `baton worker` with no flags" : ""))
        let quietRows = Int64(4 * (slots.count + 1))
        var rowsBefore = try rows.settled(quietRows: quietRows).rows
        for n in options.sizes {
            for scenario in options.scenarios {
                for _ in 0..<options.rounds {
                    let messagesBefore = canCountMessages ? messages.snapshot() : nil
                    cluster.resetPeaks()
                    let cpuBefore = cluster.coordinatorCPU()
                    let (seconds, submit, timings) = try measure(scenario.graph(n / options.runs), runs: options.runs, store: store)
                    let cpu = cluster.coordinatorCPU() - cpuBefore
                    let peaks = cluster.peaks()
                    let messagesAfter = canCountMessages ? messages.snapshot() : nil
                    let rowsAfter = try rows.settled(quietRows: quietRows)
                    var m = Measurement(
                        scenario: scenario, cluster: label, size: n, seconds: seconds, submit: submit,
                        latencies: scenario.latencies(timings), coordinatorMB: peaks.coordinator, workerMB: peaks.worker,
                        messages: MessageCounter.delta(messagesBefore, messagesAfter), rows: rowsAfter.rows - rowsBefore,
                        rowsSettled: rowsAfter.settled)
                    m.coordinatorCPU = cpu
                    m.runs = options.runs
                    rowsBefore = rowsAfter.rows
                    print(m.line(rawP50: rawHops.map { Measurement.percentile($0, 0.5) }))
                    measurements.append(m)
                }
            }
        }
    }
    print("")
    print(Summary(measurements: measurements, rawHops: rawHops, rounds: options.rounds).markdown)
} catch {
    cluster.stop()
    fail("\(error)")
}
