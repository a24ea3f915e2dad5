import Baton
import BatonStore
import Foundation

/// A day of work, compressed: `total` nodes in mixed runs (a fan-out of 2,000, a fan-in of 500 and
/// a chain of 100, in turn, a few in flight at once) through one coordinator with `--retention`,
/// sampled every `every` seconds: nodes/s, the coordinator's resident memory and the history tables'
/// sizes. It ends once retention has pruned every run of the soak.
struct Soak {
    let total: Int
    let retention: String
    let every: Double = 10
    let inFlight = 4

    struct Sample {
        let at: Double
        let nodes: Int
        let rate: Double
        let rssMB: Double
        let runs: Int
        let nodeRows: Int
        let megabytes: Double
    }

    func run(cluster: Cluster, store: Store, workers: [[String]]) throws -> [Sample] {
        try cluster.start(coordinators: 1, coordinatorArguments: ["--retention", retention], workers: workers)
        defer { cluster.stop() }
        let shapes: [(Scenario, Int)] = [(.fanOut, 2_000), (.fanIn, 500), (.chain, 100)]
        let graphs = try shapes.map { try GraphDecoder().decode($0.0.graph($0.1)) }
        let sizes = shapes.map { $0.0.nodeCount($0.1) }
        var submitted = 0, done = 0, next = 0
        var flying: [(id: String, nodes: Int)] = []
        var samples: [Sample] = []
        let start = Date()
        var lastSample = start, lastDone = 0
        func sample() throws {
            let now = Date()
            let size = try store.historySize()
            let s = Sample(
                at: now.timeIntervalSince(start), nodes: done, rate: Double(done - lastDone) / now.timeIntervalSince(lastSample),
                rssMB: cluster.coordinatorRSS(), runs: size.runs, nodeRows: size.nodes, megabytes: size.megabytes)
            samples.append(s)
            // Unbuffered: a sample shows as it is taken, also in a file or a pipe.
            FileHandle.standardOutput.write(Data((Self.line(s) + "\n").utf8))
            lastSample = now
            lastDone = done
        }
        while done < total {
            while flying.count < inFlight && submitted < total {
                let id = try store.submit(graphs[next % graphs.count]).id
                flying.append((id, sizes[next % graphs.count]))
                submitted += sizes[next % graphs.count]
                next += 1
            }
            var still: [(id: String, nodes: Int)] = []
            for run in flying {
                let status = try store.runStatus(run.id)
                if status == .succeeded {
                    done += run.nodes
                } else if let status, status.isTerminal {
                    throw BenchmarkError("soak run \(run.id) \(status.rawValue)")
                } else {
                    still.append(run)
                }
            }
            flying = still
            if Date().timeIntervalSince(lastSample) >= every { try sample() }
            usleep(20_000)
        }
        try sample()
        // Retention prunes what the soak left, at its next turns.
        let deadline = Date().addingTimeInterval(600)
        while Date() < deadline {
            if Date().timeIntervalSince(lastSample) >= every {
                try sample()
                if samples.last?.runs == 0 { break }
            }
            usleep(200_000)
        }
        return samples
    }

    static func line(_ s: Sample) -> String {
        String(
            format: "soak %6.0f s  nodes %9d  %7.0f nodes/s  coordinator RSS %6.1f MB  rows: runs %6d nodes %8d  history %8.1f MB",
            s.at, s.nodes, s.rate, s.rssMB, s.runs, s.nodeRows, s.megabytes)
    }

    /// The soak in one line: nodes/s while it ran, the coordinator's memory, the history's size.
    static func summary(_ samples: [Sample], total: Int) -> String {
        let rates = samples.filter { $0.rate > 0 }.map(\.rate).sorted()
        let rss = samples.map(\.rssMB)
        let median = rates.isEmpty ? 0 : rates[rates.count / 2]
        return String(
            format:
                "soak: %d nodes; nodes/s median %.0f (min %.0f, max %.0f); coordinator RSS %.1f-%.1f MB; history %.1f MB at most, %.1f MB after pruning",
            total, median, rates.first ?? 0, rates.last ?? 0, rss.min() ?? 0, rss.max() ?? 0, samples.map(\.megabytes).max() ?? 0,
            samples.last?.megabytes ?? 0)
    }
}
