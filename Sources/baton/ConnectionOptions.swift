import ArgumentParser
import BatonCommandLine
import BatonStore
import Foundation

/// Where PostgreSQL and RabbitMQ are, or the `baton server` to talk to instead: flags, else
/// environment, else local defaults.
struct ConnectionOptions: ParsableArguments {
    @Option(name: .customLong("database-url"), help: "libpq URI (default: $BATON_DATABASE_URL or postgresql://postgres@127.0.0.1:5432/baton)")
    var databaseURLFlag: String?

    @Option(name: .customLong("amqp-url"), help: "AMQP URI (default: $BATON_AMQP_URL or amqp://guest:guest@127.0.0.1:5672/%2f)")
    var amqpURLFlag: String?

    @Option(
        name: .customLong("server"),
        help: "Talk to this `baton server` (http(s)://HOST:PORT) with $BATON_TOKEN instead of the database (default: $BATON_SERVER)")
    var serverFlag: String?

    var databaseURL: String {
        databaseURLFlag ?? ProcessInfo.processInfo.environment["BATON_DATABASE_URL"] ?? "postgresql://postgres@127.0.0.1:5432/baton"
    }

    var amqpURL: String {
        amqpURLFlag ?? ProcessInfo.processInfo.environment["BATON_AMQP_URL"] ?? "amqp://guest:guest@127.0.0.1:5672/%2f"
    }

    /// Where a command that can go either way goes: the one place that decides (docs/cli.md, "Remote mode").
    func target() throws -> CLITarget {
        try CLITarget.decide(serverFlag: serverFlag, environment: ProcessInfo.processInfo.environment)
    }

    /// The runs as a run command reads and operates them: through the server (`--server`/`BATON_SERVER`)
    /// or in the database.
    func openRuns() throws -> any RunAccess {
        switch try target() {
        case .database: return DirectRuns(store: try openStore())
        case .server(let url, let token): return RemoteRuns(server: url, token: token)
        }
    }

    /// The schedules as `baton schedule list|show|pause|resume|trigger` read and operate them: through
    /// the server or in the database.
    func openSchedules() throws -> any ScheduleAccess {
        switch try target() {
        case .database: return DirectRuns(store: try openStore())
        case .server(let url, let token): return RemoteRuns(server: url, token: token)
        }
    }

    /// Pauses as `baton pause` and `baton resume` change and list them: through the server or in the database.
    func openPauses() throws -> any PauseAccess {
        switch try target() {
        case .database: return DirectRuns(store: try openStore())
        case .server(let url, let token): return RemoteRuns(server: url, token: token)
        }
    }

    /// Opens the store and checks the schema, with errors phrased for the user. A command that only
    /// works on the database refuses `--server` (`BATON_SERVER` in the environment does not concern it).
    func openStore(requireSchema: Bool = true) throws -> Store {
        if serverFlag != nil {
            let words = CommandLine.arguments.dropFirst().filter { !$0.hasPrefix("-") }
            // `schedule add` and `delete` only: the other schedule commands go through the server.
            let command = words.first == "schedule" ? words.prefix(2).joined(separator: " ") : words.first ?? "this command"
            throw CLIFailure("--server: `baton \(command)` works on the database only; give --database-url (or $BATON_DATABASE_URL)", exitCode: 2)
        }
        let store: Store
        do {
            store = try Store(url: databaseURL)
        } catch {
            throw CLIFailure("\(error)")  // names the (redacted) URL and libpq's reason
        }
        if requireSchema {
            do { try store.requireSchema() } catch { throw CLIFailure("\(error)") }
        }
        return store
    }

    /// Opens the store and finds the run that `text` (an id or a unique prefix) names.
    func openRun(_ text: String) throws -> (store: Store, runID: String) {
        let store = try openStore()
        do {
            return (store, try store.resolveRunID(text))
        } catch {
            store.close()
            throw CLIFailure("\(error)")
        }
    }
}
