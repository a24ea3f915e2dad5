import Baton

extension TestRun: CustomStringConvertible, CustomDebugStringConvertible {
    /// Rows of `table` at most; the rest are counted.
    public static let tableRows = 40

    /// The run in a few lines, as a failed expectation prints it: its status and error, then a
    /// table of nodes in graph order with state, attempts and error (cut to 100 characters).
    public var table: String {
        let rows = state.graph.order.prefix(Self.tableRows).map { key in
            let node = state.nodes[key]!
            return [key, node.status.rawValue, String(node.attempt), TextTable.truncate(node.error ?? "", 100)]
        }
        var lines = ["run \(status.rawValue)\(error.map { ": \($0)" } ?? "") (\(state.graph.order.count) nodes)"]
        for row in TextTable.lines(["NODE", "STATUS", "ATTEMPTS", "ERROR"], rows) {
            var line = "  " + row
            while line.last == " " { line.removeLast() }  // an empty error leaves the padding of the column before it
            lines.append(line)
        }
        let more = state.graph.order.count - Self.tableRows
        if more > 0 { lines.append("  … and \(more) more") }
        return lines.joined(separator: "\n")
    }

    public var description: String { table }
    public var debugDescription: String { table }
}
