import ArgumentParser
import Baton
import BatonCommandLine
import BatonDemo

struct ValidateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "validate", abstract: "Check a graph file; store nothing.")
    @Argument(help: "Graph file (JSON, or YAML for .yaml/.yml).") var file: String
    @Flag(help: "Accept procedures that Baton's own worker does not serve.") var allowUnknownProcedures = false
    @Flag(help: "Do not check inputs against the procedures' schemas.") var noTypeCheck = false
    @OptionGroup var runInput: RunInputOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var connection: ConnectionOptions

    /// Without a database only the built-in and demo procedures are known: a worker of one's own checks its own.
    static let local = LocalGraph(
        registry: .demo,
        unknownProcedureHint:
            "`baton validate` knows only the baton.* and demo.* procedures: check a graph of your own procedures with your worker's binary, `YOUR-WORKER validate FILE` (see WorkerMain), or pass --allow-unknown-procedures"
    )

    func run() async throws {
        if case .server(let url, let token) = try connection.target() { return try await validate(on: RemoteRuns(server: url, token: token)) }
        try Self.local.validate(
            file: file, allowUnknownProcedures: allowUnknownProcedures, typeCheck: !noTypeCheck, input: runInput.value, json: output.json)
    }

    /// Through the server: checked against the procedures its live workers serve; printed as the local check prints.
    private func validate(on server: RemoteRuns) async throws {
        let graph: (name: String, nodes: Int)
        do {
            let submission = Submission(
                path: file, bytes: try GraphFile.read(file), input: try runInput.value(), idempotencyKey: nil,
                allowUnknownProcedures: allowUnknownProcedures, typeCheck: !noTypeCheck, traceparent: nil)
            graph = try await server.validate(submission)
        } catch let failure as CLIFailure where output.json && failure.exitCode == 2 {
            Output.json(GraphFile.invalidReport(failure))
            throw ExitCode(failure.exitCode)
        }
        if output.json {
            Output.json(["valid": true, "name": .string(graph.name), "nodes": .int(Int64(graph.nodes))])
        } else {
            print("\(file): valid (\(graph.nodes) node\(graph.nodes == 1 ? "" : "s"))")
        }
    }
}
