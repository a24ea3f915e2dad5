import ArgumentParser
import Baton
import BatonCommandLine
import BatonDemo

struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "validate", abstract: "Check a graph file; store nothing.")
    @Argument(help: "Graph file (JSON, or YAML for .yaml/.yml).") var file: String
    @Flag(help: "Accept procedures that Baton's own worker does not serve.") var allowUnknownProcedures = false
    @Flag(help: "Do not check inputs against the procedures' schemas.") var noTypeCheck = false
    @OptionGroup var runInput: RunInputOptions
    @OptionGroup var output: OutputOptions

    /// Without a database only the built-in and demo procedures are known: a worker of one's own checks its own.
    static let local = LocalGraph(
        registry: .demo,
        unknownProcedureHint:
            "`baton validate` knows only the baton.* and demo.* procedures: check a graph of your own procedures with your worker's binary, `YOUR-WORKER validate FILE` (see WorkerMain), or pass --allow-unknown-procedures"
    )

    func run() throws {
        try Self.local.validate(
            file: file, allowUnknownProcedures: allowUnknownProcedures, typeCheck: !noTypeCheck, input: runInput.value, json: output.json)
    }
}
