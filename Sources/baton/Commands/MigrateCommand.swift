import ArgumentParser
import Baton
import BatonCommandLine

struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "migrate", abstract: "Create or upgrade the database schema (idempotent).")
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions
    @Option(
        help: ArgumentHelp(
            "Partitions to divide runs into, when this creates the schema (1-\(RunPartition.maximum), default \(RunPartition.standard)); fixed after.",
            valueName: "N"))
    var partitions: Int?

    func validate() throws {
        if let problem = partitions.flatMap(RunPartition.countProblem) { throw ValidationError(problem) }
    }

    func run() throws {
        let store = try connection.openStore(requireSchema: false)
        defer { store.close() }
        let applied: [Int]
        do { applied = try store.migrate(partitions: partitions) } catch { throw CLIFailure("migration failed: \(error)") }
        let count = try store.partitionCount()
        if output.json {
            Output.json(["applied": .array(applied.map { .int(Int64($0)) }), "partitions": .int(Int64(count))])
        } else {
            print(applied.isEmpty ? "schema is up to date" : "applied migration(s) \(applied.map(String.init).joined(separator: ", "))")
        }
    }
}
