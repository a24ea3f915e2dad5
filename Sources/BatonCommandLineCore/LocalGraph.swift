import ArgumentParser
import Baton
import BatonLocal
import Foundation

/// `validate FILE` and `run --local FILE` against a registry of procedures, with no services:
/// `baton` runs them with the built-in and demo procedures, a worker built on
/// `WorkerMain.main(registry:)` with its own.
public struct LocalGraph: Sendable {
    public let registry: ProcedureRegistry
    /// What an unknown procedure's problem adds (where the known ones come from, how to check others).
    public let unknownProcedureHint: String

    public init(registry: ProcedureRegistry, unknownProcedureHint: String) {
        self.registry = registry
        self.unknownProcedureHint = unknownProcedureHint
    }

    /// Checks `file` (procedures known to the registry unless `allowUnknownProcedures`, inputs against
    /// their schemas if `typeCheck`); prints what it found. Throws a `CLIFailure` naming every problem;
    /// with `json`, the report goes to stdout instead and only the exit status is thrown.
    /// `input` reads the run's input (`--input`), so a bad one is reported the same way.
    public func validate(file: String, allowUnknownProcedures: Bool, typeCheck: Bool, input: () throws -> JSON?, json: Bool) throws {
        let graph: Graph
        do {
            graph = try load(file, known: allowUnknownProcedures ? nil : Set(registry.names), input: try input(), typeCheck: typeCheck)
        } catch let failure as CLIFailure where json {
            Output.json(GraphFile.invalidReport(failure))
            throw ExitCode(failure.exitCode)
        }
        if json {
            Output.json(["valid": true, "name": .string(graph.name), "nodes": .int(Int64(graph.order.count))])
        } else {
            print("\(file): valid (\(graph.order.count) node\(graph.order.count == 1 ? "" : "s"))")
        }
    }

    /// Runs `file` in this process with the same scheduler as a cluster, `concurrency` procedures at
    /// once; prints every node's end. Throws a `CLIFailure` when the run does not succeed.
    public func run(file: String, concurrency: Int, input: JSON?, json: Bool) async throws {
        guard concurrency >= 1 else { throw CLIFailure("--concurrency must be at least 1", exitCode: 2) }
        let graph = try load(file, known: Set(registry.names), input: input, typeCheck: true)
        if let signal = graph.staticNodes.first(where: { if case .signal = $0.kind { true } else { false } }) {
            throw CLIFailure(
                "node '\(signal.key)' waits for a signal, which a run in this process cannot be sent; submit the graph to a cluster and send it with `baton signal`",
                exitCode: 2)
        }
        var engine = LocalEngine(registry: registry, maxConcurrency: concurrency)
        engine.limits = try Limits.fromEnvironment()
        let state = await engine.run(graph)
        let keys = NodeKey.treeOrder(state.graph.order)  // children of groups, maps and spawning nodes too
        if json {
            let nodes: [(key: String, value: JSON)] = keys.map { key in
                let n = state.nodes[key]!
                var fields: [(key: String, value: JSON)] = [("status", .string(n.status.rawValue)), ("attempts", .int(Int64(n.attempt)))]
                if let input = n.input { fields.append(("input", input)) }
                if let o = n.output { fields.append(("output", o)) }
                if let e = n.error { fields.append(("error", .string(e))) }
                return (key, .object(JSONObject(fields)))
            }
            var result: [(key: String, value: JSON)] = [("run_id", .string(state.runID)), ("status", .string(state.status.rawValue))]
            if let error = state.error { result.append(("error", .string(error))) }
            result.append(("nodes", .object(JSONObject(nodes))))
            Output.json(.object(JSONObject(result)))
        } else {
            Output.table(
                ["NODE", "STATUS", "OUTPUT / ERROR"],
                keys.map { key in
                    let n = state.nodes[key]!
                    return [key, n.status.rawValue, Output.truncate(n.error ?? n.output?.serialized() ?? "", 100)]
                })
            print("run \(state.status.rawValue)")
        }
        if state.status != .succeeded { throw CLIFailure("run \(state.status.rawValue)\(state.error.map { ": \($0)" } ?? "")") }
    }

    private func load(_ file: String, known: Set<String>?, input: JSON?, typeCheck: Bool) throws -> Graph {
        try GraphFile.load(
            file, knownProcedures: known, input: input, schemas: typeCheck ? registry.checkedSchemas : nil,
            unknownProcedureHint: unknownProcedureHint, servedVersions: ServedVersions(everywhere: registry.names))
    }
}
