import Baton

/// `sim.version` in two versions whose inputs differ (`{"n"}` and `{"m"}`): the simulator's workers
/// serve one or the other (`SimulationGraph.versions`, `VersionProcedures.registry`), so a task routed
/// to a worker that does not serve its version is seen (`InvariantChecker.served`).
enum VersionProcedures {
    struct V1: Procedure {
        static let name = "sim.version"
        struct Input: Codable, Sendable { var n: Int }
        func execute(_ input: Input, context: ProcedureContext) async throws -> JSON { ["version": 1, "n": .int(Int64(input.n))] }
    }

    struct V2: Procedure {
        static let name = "sim.version"
        static let version = 2
        struct Input: Codable, Sendable { var m: Int }
        func execute(_ input: Input, context: ProcedureContext) async throws -> JSON { ["version": 2, "m": .int(Int64(input.m))] }
    }

    /// The registry of worker `index` of `count` in the default pool: the demo procedures, and version
    /// 1 of `sim.version` on even workers, version 2 on odd ones (both on a lone worker).
    static func registry(worker index: Int, of count: Int) -> ProcedureRegistry {
        var registry = ProcedureRegistry.demo
        if index % 2 == 0 || count == 1 { registry.register(V1()) }
        if index % 2 == 1 || count == 1 { registry.register(V2()) }
        return registry
    }
}

extension SimulationGraph {
    /// Nodes pinned on each version of `sim.version`, and one that names none (version 1, as a graph
    /// decoded without the live workers plans it), each with the output only its version gives.
    static let versions = SimulationGraph(
        name: "versions",
        document: [
            "name": "versions",
            "nodes": [
                "old": ["procedure": "sim.version@1", "input": ["n": 1]],
                "new": ["procedure": "sim.version@2", "input": ["m": 2]],
                "plain": ["procedure": "sim.version", "input": ["n": 3]],
                "both": ["procedure": "baton.echo", "input": ["a": ["$from": "old"], "b": ["$from": "new"]]],
            ],
        ],
        outputs: [
            "old": ["version": 1, "n": 1], "new": ["version": 2, "m": 2], "plain": ["version": 1, "n": 3],
            "both": ["a": ["version": 1, "n": 1], "b": ["version": 2, "m": 2]],
        ], claims: [:])
}
