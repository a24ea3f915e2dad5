import ArgumentParser
import Baton
import BatonDemo
import BatonTesting
import Foundation

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a graph in this process with the same scheduler, no services needed.")
    @Argument(help: "Graph file (JSON, or YAML for .yaml/.yml).") var file: String
    @Flag(help: "Run in process (the only mode for now; required so the intent is explicit).") var local = false
    @Option(parsing: .unconditional, help: "Procedures run at once.") var concurrency = 8
    @OptionGroup var runInput: RunInputOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        guard local else { throw CLIFailure("`baton run` needs --local (use `baton submit --wait` to run on the cluster)", exitCode: 2) }
        guard concurrency >= 1 else { throw CLIFailure("--concurrency must be at least 1", exitCode: 2) }
        try CLILogging.bootstrap()
        let registry = ProcedureRegistry.demo
        let graph = try GraphFile.load(
            file, knownProcedures: Set(registry.names), input: try runInput.value(), schemas: registry.checkedSchemas)
        var engine = LocalEngine(registry: registry, maxConcurrency: concurrency)
        engine.limits = try Limits.fromEnvironment()
        let state = await engine.run(graph)
        let keys = NodeKey.treeOrder(state.graph.order)  // children of groups, maps and spawning nodes too
        if output.json {
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
}
