/// Signal nodes in a graph file: `{"signal": "approval", "timeout": "1h"}`.
extension GraphDecoder {
    /// The fields a signal node takes: when it starts waiting (`after`, `when`, `dependencies`), how
    /// long it waits (`timeout`), and what a timeout does (`retry`, `on_failure`). Nothing runs it on a
    /// worker, so it has no procedure, input, pool, priority, condition, repeat, mutex, concurrency, cache or rate.
    static let signalFields: Set<String> = ["signal", "after", "when", "dependencies", "on_failure", "retry", "timeout"]

    /// The one-line problem of a field a signal node does not take.
    static func signalFieldProblem(_ field: String) -> String {
        let why =
            switch field {
            case "input": "its output is the value the signal delivers"
            case "procedure": "nothing runs it; it waits for `baton signal`"
            default: "it runs nowhere: it waits, holding no worker slot, for `baton signal`"
            }
        return "a signal node has no \(field) (\(why))"
    }

    /// The `signal` field: the name of what the node waits for, a non-empty string.
    func decodeSignal(_ json: JSON, node: String, problem: (String?, String, String) -> Void) -> SignalSpec? {
        guard case let .string(name) = json else {
            problem(node, "signal", "must be a string naming what the node waits for, like \"approval\", found \(json.kindName)")
            return nil
        }
        guard !name.isEmpty else {
            problem(node, "signal", "must not be empty: name what the node waits for, like \"approval\"")
            return nil
        }
        guard name.count <= SignalSpec.maxNameLength, !name.contains(where: { $0.isNewline || $0 == "\u{0}" }) else {
            problem(node, "signal", "must be one line of at most \(SignalSpec.maxNameLength) characters")
            return nil
        }
        return SignalSpec(name: name)
    }
}
