import ArgumentParser
import BatonCommandLine
import BatonStore
import Foundation

/// Where PostgreSQL and RabbitMQ are: flags, else environment, else local defaults.
struct ConnectionOptions: ParsableArguments {
    @Option(name: .customLong("database-url"), help: "libpq URI (default: $BATON_DATABASE_URL or postgresql://postgres@127.0.0.1:5432/baton)")
    var databaseURLFlag: String?

    @Option(name: .customLong("amqp-url"), help: "AMQP URI (default: $BATON_AMQP_URL or amqp://guest:guest@127.0.0.1:5672/%2f)")
    var amqpURLFlag: String?

    var databaseURL: String {
        databaseURLFlag ?? ProcessInfo.processInfo.environment["BATON_DATABASE_URL"] ?? "postgresql://postgres@127.0.0.1:5432/baton"
    }

    var amqpURL: String {
        amqpURLFlag ?? ProcessInfo.processInfo.environment["BATON_AMQP_URL"] ?? "amqp://guest:guest@127.0.0.1:5672/%2f"
    }

    /// Opens the store and checks the schema, with errors phrased for the user.
    func openStore(requireSchema: Bool = true) throws -> Store {
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
