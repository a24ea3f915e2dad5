import ArgumentParser

/// The benchmark's command line.
struct Options: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "BatonBenchmark",
        abstract: "The hot-path benchmark: fan-out, fan-in and chain graphs on the real services; prints nodes/s, latency percentiles, "
            + "peak memory, broker messages and database rows per node, and the raw broker hop.")

    @Option(help: "Graph sizes, comma separated (each at least 2).") var nodes = "1000,10000"
    @Option(help: "Clusters to measure: default (one `baton worker` with its default settings), tuned (--workers x --concurrency), or both.")
    var cluster = "both"
    @Option(help: "Worker processes of the tuned cluster.") var workers = 2
    @Option(help: "Slots per worker process of the tuned cluster.") var concurrency = 32
    @Option(help: "Times each scenario runs; the summary reports the median (and min-max) nodes/s.") var rounds = 3
    @Option(help: "Messages in the raw broker ping-pong (publish persistent and confirmed, consume, ack).") var rawHops = 1000
    @Option(help: "Run only this scenario: fan-out, fan-in or chain.") var only: String?
    @Option(help: "Coordinator counts to measure side by side, comma separated (e.g. 1,2,3): each cluster runs with each.")
    var coordinators = "1"
    @Option(help: "Runs each scenario is split into, submitted at once (spread over the partitions, so over the coordinators).")
    var runs = 1
    @Flag(help: "Only time the wire formats in process (no services): encoding and decoding one hop's messages.") var codec = false
    @Option(
        help:
            "Soak instead: push this many nodes through in mixed runs (fan-out, fan-in, chain) with the coordinator's --retention on; report nodes/s, its memory and the table sizes over time."
    )
    var soak: Int?
    @Option(
        help:
            "Time the front doors instead: a 1-node graph submitted this many times in turn over the HTTP API, the Swift library and the CLI; submits/s and submit-to-result latency."
    )
    var api: Int?
    @Option(help: "The soak's --retention (it prunes every tenth of it, at least every 10 s).") var soakRetention = "60s"

    var coordinatorCounts: [Int] { coordinators.split(separator: ",").compactMap { Int($0) } }
    var sizes: [Int] { nodes.split(separator: ",").compactMap { Int($0) } }
    var scenarios: [Scenario] { Scenario.allCases.filter { only == nil || $0.rawValue == only } }
    var clusters: [ClusterKind] { cluster == "both" ? ClusterKind.allCases : ClusterKind.allCases.filter { $0.rawValue == cluster } }

    func validate() throws {
        guard !sizes.isEmpty, !sizes.contains(where: { $0 < 2 }) else { throw ValidationError("--nodes takes sizes of at least 2, comma separated") }
        guard workers >= 1, concurrency >= 1 else { throw ValidationError("--workers and --concurrency must be at least 1") }
        guard !coordinatorCounts.isEmpty, coordinatorCounts.allSatisfy({ (1...16).contains($0) }) else {
            throw ValidationError("--coordinators takes counts from 1 to 16, comma separated")
        }
        guard runs >= 1, sizes.allSatisfy({ $0 / runs >= 2 }) else {
            throw ValidationError("--runs must be at least 1, with 2 nodes or more per run")
        }
        if let api, api < 10 { throw ValidationError("--api takes at least 10 submits") }
        guard rounds >= 1 else { throw ValidationError("--rounds must be at least 1") }
        guard rawHops >= 10 else { throw ValidationError("--raw-hops must be at least 10") }
        if let only, Scenario(rawValue: only) == nil { throw ValidationError("--only takes fan-out, fan-in or chain") }
        guard !clusters.isEmpty else { throw ValidationError("--cluster takes default, tuned or both") }
    }
}
