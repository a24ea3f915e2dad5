import ArgumentParser
import Baton
import BatonCommandLine
import BatonDemo

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a graph in this process with the same scheduler, no services needed.")
    @Argument(help: "Graph file (JSON, or YAML for .yaml/.yml).") var file: String
    @Flag(help: "Run in process (the only mode for now; required so the intent is explicit).") var local = false
    @Option(parsing: .unconditional, help: "Procedures run at once.") var concurrency = 8
    @OptionGroup var runInput: RunInputOptions
    @OptionGroup var output: OutputOptions

    static let local = LocalGraph(
        registry: .demo,
        unknownProcedureHint:
            "`baton run --local` runs only the baton.* and demo.* procedures: run a graph of your own procedures with your worker's binary, `YOUR-WORKER run --local FILE` (see WorkerMain)"
    )

    func run() async throws {
        guard local else { throw CLIFailure("`baton run` needs --local (use `baton submit --wait` to run on the cluster)", exitCode: 2) }
        try CLILogging.bootstrap()
        try await Self.local.run(file: file, concurrency: concurrency, input: try runInput.value(), json: output.json)
    }
}
