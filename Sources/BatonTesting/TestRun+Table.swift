import Baton

extension TestRun: CustomStringConvertible, CustomDebugStringConvertible {
    /// Rows of `table` at most; the rest are counted.
    public static let tableRows = 40

    /// The run in a few lines, as a failed expectation prints it: its status and error, then a
    /// table of nodes in graph order with state, attempts and error (cut to 100 characters).
    public var table: String {
        var rows = [["NODE", "STATUS", "ATTEMPTS", "ERROR"]]
        for key in state.graph.order.prefix(Self.tableRows) {
            let node = state.nodes[key]!
            var error = node.error ?? ""
            if error.count > 100 { error = String(error.prefix(99)) + "…" }
            rows.append([key, node.status.rawValue, String(node.attempt), error])
        }
        let widths = (0..<3).map { column in rows.map { $0[column].count }.max()! }
        var lines = ["run \(status.rawValue)\(error.map { ": \($0)" } ?? "") (\(state.graph.order.count) nodes)"]
        for row in rows {
            let padded = (0..<3).map { row[$0].padding(toLength: widths[$0], withPad: " ", startingAt: 0) } + [row[3]]
            var line = "  " + padded.joined(separator: "  ")
            while line.last == " " { line.removeLast() }
            lines.append(line)
        }
        let more = state.graph.order.count - Self.tableRows
        if more > 0 { lines.append("  … and \(more) more") }
        return lines.joined(separator: "\n")
    }

    public var description: String { table }
    public var debugDescription: String { table }
}
