import Baton

extension ChaosGraph {
    /// Bytes of the string each run's big node echoes.
    static let bigBytes = 2 << 20

    /// A run of big outputs in the graph: `big` echoes a 2 MiB string with the value of a node in
    /// the middle of the graph (so it runs mid-run, under the faults), three `copy` nodes inject it
    /// whole and `pair` injects it twice (4 MiB). Past the coordinators' small memory budget
    /// (`ChaosProcesses.budgetOptions`) their outputs are dropped from memory and read back, and
    /// their commits are cut by bytes.
    static func addBigOutputs(to nodes: inout [(key: String, value: JSON)], expected: inout [String: JSON], after anchor: String) {
        let pad = JSON.string(String(repeating: "b", count: bigBytes))
        nodes.append(("big", ["procedure": "baton.echo", "input": ["pad": pad, "v": ["$from": .string(anchor)]]]))
        let big: JSON = ["pad": pad, "v": expected[anchor] ?? .null]
        expected["big"] = big
        for i in 0..<3 {
            nodes.append(("copy-\(i)", ["procedure": "baton.echo", "input": ["copy": ["$from": "big"], "i": .int(Int64(i))]]))
            expected["copy-\(i)"] = ["copy": big, "i": .int(Int64(i))]
        }
        nodes.append(("pair", ["procedure": "baton.echo", "input": .array([["$from": "big"], ["$from": "big"]])]))
        expected["pair"] = .array([big, big])
    }
}
