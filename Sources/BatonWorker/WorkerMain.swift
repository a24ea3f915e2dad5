import ArgumentParser
import Baton
import BatonCommandLineCore
import Foundation

/// A worker binary of one's own in one line: its `main.swift` is its procedures, a registry and
///
///     await WorkerMain.main(registry: registry)
///
/// The binary then has `baton worker`'s interface and behaviour (every flag and environment
/// variable: `--processes N` supervised with restarts, `--concurrency`, `--prefetch`, `--pools`,
/// `--amqp-url`, `--help`, `--version`; logging to stderr at `BATON_LOG_LEVEL`; a graceful drain on
/// SIGTERM), serving `registry` and, unless `builtIns` is false, Baton's own `baton.*` procedures
/// beside them. Two commands check and run graphs of its procedures with no services:
/// `NAME validate FILE` and `NAME run --local FILE`. `--metrics`, `--otlp-endpoint` and YAML graph
/// files are opt-ins (`extras`: `.all` from the `BatonWorkerExtras` product), so a worker that does
/// without them builds none of their dependencies.
public enum WorkerMain {
    /// Parses the command line, runs the worker (or `validate` / `run`), and exits: 0 when it
    /// drained after SIGTERM or SIGINT, 1 with one line on stderr on an error, 2 on a usage error.
    public static func main(
        registry: ProcedureRegistry, builtIns: Bool = true, extras: WorkerExtras = WorkerExtras(), arguments: [String]? = nil
    ) async -> Never {
        let served = builtIns ? ProcedureRegistry.builtIn.merging(registry) : registry
        if let yaml = extras.yaml { GraphFileYAML.install(yaml) }
        WorkerMainContext.set(registry: served, program: URL(fileURLWithPath: CommandLine.arguments[0]).lastPathComponent, extras: extras)
        await CommandMain.run(WorkerMainCommand.self, program: WorkerMainContext.program, arguments: arguments)
    }
}

/// What the commands of a `WorkerMain` binary read: set once, before the arguments are parsed.
enum WorkerMainContext {
    nonisolated(unsafe) private(set) static var registry = ProcedureRegistry.builtIn
    nonisolated(unsafe) private(set) static var program = "worker"
    nonisolated(unsafe) private(set) static var extras = WorkerExtras()

    static func set(registry: ProcedureRegistry, program: String, extras: WorkerExtras) {
        self.registry = registry
        self.program = program
        self.extras = extras
    }

    static var local: LocalGraph {
        LocalGraph(
            registry: registry,
            unknownProcedureHint:
                "\(program) serves \(registry.names.joined(separator: ", ")) and baton.delay; pass --allow-unknown-procedures to check the rest of the graph"
        )
    }
}

/// The worker itself (`baton worker`'s flags), with `validate` and `run` beside it.
struct WorkerMainCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: WorkerMainContext.program,
            abstract: "A Baton worker serving \(served); with no command it serves them, with `baton worker`'s flags.",
            version: "\(WorkerMainContext.program) (Baton \(BatonVersion.number))",
            subcommands: [Validate.self, Run.self])
    }

    /// The procedures by name, or their count when there are many.
    static var served: String {
        let names = WorkerMainContext.registry.names
        return names.count <= 6 ? names.joined(separator: ", ") : "\(names.count) procedures (`baton procedures` lists them once it runs)"
    }

    @OptionGroup var options: WorkerOptions

    func run() async throws {
        try await WorkerLaunch.run(
            options, registry: WorkerMainContext.registry, command: [], label: WorkerMainContext.program, extras: WorkerMainContext.extras)
    }

    /// `validate FILE`: `baton validate` with this binary's procedures and schemas.
    struct Validate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "validate", abstract: "Check a graph file against this worker's procedures and their schemas; store nothing.")
        @Argument(help: "Graph file (JSON, or YAML for .yaml/.yml).") var file: String
        @Flag(help: "Accept procedures that this worker does not serve.") var allowUnknownProcedures = false
        @Flag(help: "Do not check inputs against the procedures' schemas.") var noTypeCheck = false
        @OptionGroup var runInput: RunInputOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            try WorkerMainContext.local.validate(
                file: file, allowUnknownProcedures: allowUnknownProcedures, typeCheck: !noTypeCheck, input: runInput.value,
                json: output.json)
        }
    }

    /// `run --local FILE`: `baton run --local` with this binary's procedures.
    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "run", abstract: "Run a graph of this worker's procedures in this process, no services needed.")
        @Argument(help: "Graph file (JSON, or YAML for .yaml/.yml).") var file: String
        @Flag(help: "Run in process (the only mode; required so the intent is explicit).") var local = false
        @Option(parsing: .unconditional, help: "Procedures run at once.") var concurrency = 8
        @OptionGroup var runInput: RunInputOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            guard local else {
                throw CLIFailure("`run` needs --local (use `baton submit --wait` to run on the cluster)", exitCode: 2)
            }
            try CLILogging.bootstrap(metadataProvider: WorkerMainContext.extras.loggingMetadata)
            try await WorkerMainContext.local.run(file: file, concurrency: concurrency, input: try runInput.value(), json: output.json)
        }
    }
}
