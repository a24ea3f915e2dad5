import ArgumentParser
import Baton
import BatonCommandLine

struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "migrate", abstract: "Create or upgrade the database schema (idempotent).")
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let store = try connection.openStore(requireSchema: false)
        defer { store.close() }
        let applied: [Int]
        do { applied = try store.migrate() } catch { throw CLIFailure("migration failed: \(error)") }
        if output.json {
            Output.json(["applied": .array(applied.map { .int(Int64($0)) })])
        } else {
            print(applied.isEmpty ? "schema is up to date" : "applied migration(s) \(applied.map(String.init).joined(separator: ", "))")
        }
    }
}
