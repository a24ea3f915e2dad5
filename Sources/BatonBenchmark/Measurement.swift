import Foundation

/// One round of one scenario on one cluster.
struct Measurement {
    let scenario: Scenario
    /// The cluster's label, e.g. `default 1x4`.
    let cluster: String
    /// The graph's size argument (the fan-outs have one node more: the join).
    let size: Int
    /// Seconds from submit to the run's end, and of that the submit (validating and storing).
    let seconds: Double
    let submit: Double
    /// Sorted latencies in seconds: queued->started (fan-outs) or finished->next started (chain).
    let latencies: [Double]
    /// Peak RSS during the round in MB (from the process's start if the kernel would not reset it).
    let coordinatorMB: Double
    let workerMB: Double
    /// Messages enqueued in the vhost and rows written in schema `baton`, nil if they could not be
    /// counted; `rowsSettled` false if the row counters were still moving at the deadline.
    let messages: Int64?
    let rows: Int64?
    let rowsSettled: Bool
    /// CPU seconds the coordinators used during the round (all of them together).
    var coordinatorCPU: Double = .nan
    /// Runs the nodes were split into.
    var runs = 1

    var nodes: Int { runs * scenario.nodeCount(size / runs) }
    /// Coordinator CPU microseconds per node (all coordinators together).
    var coordinatorMicrosecondsPerNode: Double { coordinatorCPU * 1e6 / Double(nodes) }
    var nodesPerSecond: Double { Double(nodes) / seconds }
    var p50: Double { Self.percentile(latencies, 0.5) }
    var p99: Double { Self.percentile(latencies, 0.99) }
    var messagesPerNode: Double? { messages.map { Double($0) / Double(nodes) } }
    var rowsPerNode: Double? { rows.map { Double($0) / Double(nodes) } }

    /// The line printed when the round is done; with the raw broker hop's p50, the chain's hop p50 as a multiple of it.
    func line(rawP50: Double?) -> String {
        // %-8@ does not pad on Linux: pad by hand.
        scenario.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0) + cluster.padding(toLength: 22, withPad: " ", startingAt: 0)
            + String(
                format: "N=%-6d %7.2f s %8.0f nodes/s  submit %.2f s  %@ p50 %@ p99 %@", size, seconds, nodesPerSecond, submit,
                scenario.hopName as NSString, Self.ms(p50) as NSString, Self.ms(p99) as NSString)
            + (scenario == .chain ? rawP50.map { String(format: " (p50 %.1fx raw)", p50 / $0) } ?? "" : "")
            + String(format: "  peak RSS coordinator %.0f MB, worker %.0f MB", coordinatorMB, workerMB)
            + String(format: "  coordinator CPU %.0f us/node", coordinatorMicrosecondsPerNode)
            + "  msgs/node \(Self.count(messagesPerNode))  rows/node \(Self.count(rowsPerNode))\(rowsSettled ? "" : " (counters still moving)")"
    }

    static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        return (sorted[(sorted.count - 1) / 2] + sorted[sorted.count / 2]) / 2
    }

    static func ms(_ seconds: Double) -> String { String(format: "%.2f ms", seconds * 1000) }

    static func count(_ perNode: Double?) -> String { perNode.map { String(format: "%.2f", $0) } ?? "n/a" }
}
