import ArgumentParser
import Baton
import BatonDemo

struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "validate", abstract: "Check a graph file; store nothing.")
    @Argument(help: "Graph file (JSON, or YAML for .yaml/.yml).") var file: String
    @Flag(help: "Accept procedures that Baton's own worker does not serve.") var allowUnknownProcedures = false
    @Flag(help: "Do not check inputs against the procedures' schemas.") var noTypeCheck = false
    @OptionGroup var runInput: RunInputOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        do {
            // Without a database only the built-in and demo procedures' schemas are known.
            let registry = ProcedureRegistry.demo
            let known = allowUnknownProcedures ? nil : Set(registry.names)
            let graph = try GraphFile.load(
                file, knownProcedures: known, input: try runInput.value(), schemas: noTypeCheck ? nil : registry.checkedSchemas)
            if output.json {
                Output.json(["valid": true, "name": .string(graph.name), "nodes": .int(Int64(graph.order.count))])
            } else {
                print("\(file): valid (\(graph.order.count) node\(graph.order.count == 1 ? "" : "s"))")
            }
        } catch let failure as CLIFailure where output.json {
            Output.json(GraphFile.invalidReport(failure))
            throw ExitCode(failure.exitCode)
        }
    }
}
