import Baton

extension SimulationGraph {
    /// A node whose output is about `bytes` long (`big`), injected whole into `dependents` nodes that
    /// each echo it back (so each of their outputs is as big), and a node after them all with a small
    /// output. At the simulator's budgets (`SimulationOptions.memoryBudget`, `.commitBytes`) its outputs
    /// are dropped from memory and read back from the store, and its commits are cut by bytes.
    static func bigOutputs(bytes: Int, dependents: Int) -> SimulationGraph {
        // Text that varies, so that no stage could mistake one node's output for another's.
        let unit = "0123456789abcdefghijklmnopqrstuvwxyz-"
        let blob = JSON.string(String(String(repeating: unit, count: bytes / unit.count + 1).prefix(bytes)))
        var nodes: [(key: String, value: JSON)] = [("big", ["procedure": "baton.echo", "input": ["blob": blob]])]
        var outputs: [String: JSON] = [:]
        var parts: [JSON] = []
        for index in 0..<dependents {
            let key = "d\(index)"
            let input: JSON = ["part": .int(Int64(index)), "blob": ["$from": "big", "select": "/blob"]]
            nodes.append((key, ["procedure": "baton.echo", "input": input]))
            outputs[key] = ["part": .int(Int64(index)), "blob": blob]
            parts.append(["$from": .string(key), "select": "/part"])
        }
        nodes.append(("end", ["procedure": "baton.echo", "input": ["parts": .array(parts)]]))
        outputs["end"] = ["parts": .array((0..<dependents).map { .int(Int64($0)) })]
        outputs["big"] = ["blob": blob]
        return SimulationGraph(
            name: "big-outputs", document: ["name": "big-outputs", "nodes": .object(JSONObject(nodes))], outputs: outputs, claims: [:])
    }
}
