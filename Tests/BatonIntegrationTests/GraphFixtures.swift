import Baton
import Foundation

/// Graph documents built in code for the integration tests.
enum GraphFixtures {
    /// `width` nodes that each add their index to a seed, joined by one node summing them all.
    static func fanOut(width: Int, seed: Int64 = 7) -> JSON {
        var nodes: [(key: String, value: JSON)] = [("seed", ["procedure": "baton.echo", "input": ["value": .int(seed)]])]
        for i in 0..<width {
            nodes.append(
                (
                    "n-\(i)",
                    [
                        "procedure": "baton.add",
                        "input": ["values": [.int(Int64(i)), ["$from": "seed", "select": "/value"]]],
                    ]
                ))
        }
        let refs: [JSON] = (0..<width).map { ["$from": .string("n-\($0)")] }
        nodes.append(("join", ["procedure": "baton.add", "input": ["values": .array(refs)]]))
        return ["name": "fan-out", "nodes": .object(JSONObject(nodes))]
    }

    /// `count` slow nodes (`baton.sleep` of `seconds`) and `count`, which adds up what each slept: it
    /// needs every one of them, so it shows a lost or doubled result.
    static func slowSum(name: String, count: Int, seconds: Double) -> JSON {
        var nodes: [String: JSON] = [:]
        for i in 0..<count { nodes["slow-\(i)"] = ["procedure": "baton.sleep", "input": ["seconds": .double(seconds)]] }
        nodes["count"] = [
            "procedure": "baton.add",
            "input": ["values": .array((0..<count).map { i in ["$from": .string("slow-\(i)"), "select": "/slept"] })],
        ]
        return ["name": .string(name), "nodes": object(nodes)]
    }

    /// A JSON object of `members` (in key order).
    static func object(_ members: [String: JSON]) -> JSON {
        .object(JSONObject(members.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
    }

    static func write(_ json: JSON) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("graph-\(UUID().uuidString.prefix(8)).json").path
        try Data(json.serializedBytes()).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A graph file of examples/, parsed.
    static func example(_ name: String) throws -> JSON {
        try JSONParser.parse(Array(try Data(contentsOf: examplesDirectory.appendingPathComponent(name))))
    }

    static var examplesDirectory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("examples")
    }
}
