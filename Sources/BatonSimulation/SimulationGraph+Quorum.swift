import Baton

/// The graphs every quorum run adds to those drawn from the catalog: tasks of every priority band
/// at once, and a task that kills its workers.
extension SimulationGraph {
    /// Nine sleeps, three in each priority band, all ready at once: workers hold tasks of several
    /// bands together, and must start the highest first (`QuorumInvariants.started`).
    static let bands: SimulationGraph = {
        var nodes: [(key: String, value: JSON)] = []
        var outputs: [String: JSON] = [:]
        for (band, priority) in [("low", 0), ("mid", 4), ("high", 7)] {
            for i in 1...3 {
                nodes.append(("\(band)\(i)", ["procedure": "baton.sleep", "input": ["seconds": 0.3], "priority": .int(Int64(priority + i - 1))]))
                outputs["\(band)\(i)"] = ["slept": 0.3]
            }
        }
        return SimulationGraph(
            name: "bands", document: ["name": "bands", "nodes": .object(JSONObject(nodes))], outputs: outputs, claims: [:])
    }()

    /// The pool of `poison`'s task, served by a worker of its own: a task that kills its worker
    /// counts a delivery against every task that worker held (and with quorum queues a worker holds
    /// up to two per queue), so in the default pool the tasks it takes along would be dead-lettered
    /// with it, as they would be in production.
    static let poisonPool = "poison"

    /// A task that kills every worker it reaches: dead-lettered after a bounded number of
    /// deliveries, its node fails (ignored, so the run succeeds and its dependent sees null).
    static let poison = poison(in: poisonPool)

    /// `poison` with its task in `pool`.
    static func poison(in pool: String) -> SimulationGraph {
        SimulationGraph(
            name: "poison",
            document: [
                "name": "poison",
                "nodes": [
                    "poison": [
                        "procedure": "baton.echo", "input": [SimulatedExecutor.poisonKey: true], "on_failure": "ignore", "priority": 4,
                        "pool": .string(pool),
                    ],
                    "after": ["procedure": "baton.echo", "input": ["x": ["$from": "poison"]]],
                ],
            ], outputs: ["after": ["x": .null]], claims: [:], poison: ["poison"])
    }
}
