import Foundation

/// The final table, in Markdown so it can go into docs/performance.md as it is: one row per
/// scenario, cluster and size, over its rounds.
struct Summary {
    let measurements: [Measurement]
    /// Sorted raw broker hop times in seconds, nil if they could not be measured.
    let rawHops: [Double]?
    let rounds: Int

    var markdown: String {
        var groups: [[Measurement]] = []
        for m in measurements {
            if let i = groups.firstIndex(where: { $0[0].scenario == m.scenario && $0[0].cluster == m.cluster && $0[0].size == m.size }) {
                groups[i].append(m)
            } else {
                groups.append([m])
            }
        }
        let rawP50 = rawHops.map { Measurement.percentile($0, 0.5) }
        var lines = [
            "| scenario | cluster | nodes | nodes/s (median of \(rounds)) | min-max | submit s | hop p50 / p99 ms | raw hop p50 ms | hop / raw "
                + "| coordinator / worker peak MB | coordinator CPU us/node | msgs/node | rows/node |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for group in groups {
            let first = group[0]
            let rates = group.map(\.nodesPerSecond)
            let p50 = Measurement.median(group.map(\.p50))
            let isChain = first.scenario == .chain
            let raw = isChain ? rawP50.map { String(format: "%.2f", $0 * 1000) } ?? "n/a" : ""
            let ratio = isChain ? rawP50.map { String(format: "%.1fx", p50 / $0) } ?? "n/a" : ""
            let messages = Self.median(group.map(\.messagesPerNode))
            let rows = Self.median(group.map(\.rowsPerNode))
            let cells = [
                first.scenario.rawValue, first.cluster, String(first.nodes), String(format: "%.0f", Measurement.median(rates)),
                String(format: "%.0f-%.0f", rates.min()!, rates.max()!), String(format: "%.2f", Measurement.median(group.map(\.submit))),
                String(format: "%.2f / %.2f", p50 * 1000, Measurement.median(group.map(\.p99)) * 1000), raw, ratio,
                String(format: "%.0f / %.0f", group.map(\.coordinatorMB).max()!, group.map(\.workerMB).max()!),
                String(format: "%.0f", Measurement.median(group.map(\.coordinatorMicrosecondsPerNode))),
                Measurement.count(messages), (group.allSatisfy(\.rowsSettled) ? "" : "~") + Measurement.count(rows),
            ]
            lines.append("| " + cells.joined(separator: " | ") + " |")
        }
        lines.append("")
        lines.append(
            "nodes/s: from submit to the run's end. hop: queued->started for the fan-outs, finished->next started for the chain; "
                + "raw hop: a persistent publish, its confirm, the delivery and the ack on the same broker, one at a time. "
                + "Peak RSS: the largest of the rounds. Coordinator CPU: user and system time of all coordinators over the round.  msgs/node: messages enqueued in the vhost; rows/node: rows inserted, updated "
                + "or deleted in schema baton (~: counters still moving at the deadline); medians of the rounds.")
        return lines.joined(separator: "\n")
    }

    /// The median of the counts, nil if any round has none.
    private static func median(_ values: [Double?]) -> Double? {
        let known = values.compactMap { $0 }
        return known.count == values.count ? Measurement.median(known) : nil
    }
}
