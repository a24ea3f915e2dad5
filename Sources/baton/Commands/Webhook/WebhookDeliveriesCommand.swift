import ArgumentParser
import Baton
import BatonCommandLine
import BatonStore

struct WebhookDeliveriesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deliveries", abstract: "Show deliveries, newest first, with every attempt and the receiver's status code.")
    @Argument(help: "Only this webhook's (its id); all webhooks' without it.") var id: String?
    @Option(help: "Only deliveries in this state: pending, delivered or failed.") var state: String?
    @Option(help: "At most this many deliveries (1 to 1000).") var limit = 20
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        var hook: Int64?
        if let id {
            guard let number = Int64(id), number > 0 else { throw CLIFailure("'\(id)' is not a webhook id (a positive number)", exitCode: 2) }
            hook = number
        }
        if let state, !["pending", "delivered", "failed"].contains(state) {
            throw CLIFailure("--state '\(state)': pending, delivered or failed", exitCode: 2)
        }
        guard (1...1000).contains(limit) else { throw CLIFailure("--limit must be from 1 to 1000", exitCode: 2) }
        let store = try connection.openStore()
        defer { store.close() }
        if let hook, try store.webhook(id: hook) == nil { throw CLIFailure("no webhook \(hook) (see `baton webhook list`)", exitCode: 2) }
        let rows = try store.deliveries(webhookID: hook, state: state, limit: limit)
        if output.json {
            Output.json(.array(rows.map(\.json)))
            return
        }
        if rows.isEmpty {
            print("no deliveries")
            return
        }
        Output.table(
            ["ID", "WEBHOOK", "EVENT", "TYPE", "RUN", "STATE", "ATTEMPTS", "STATUSES", "NEXT"],
            rows.map { d in
                [
                    String(d.id), String(d.webhookID), d.eventID, d.type, d.runID.map { String($0.prefix(8)) } ?? "-", d.state, String(d.attempts),
                    d.history.map { $0.status.map(String.init) ?? "-" }.joined(separator: ","),
                    d.nextAttemptAt.map(CivilDate.iso8601) ?? "-",
                ]
            })
        if let failing = rows.first(where: { $0.lastError != nil && $0.state != "delivered" }), let error = failing.lastError {
            print("last error of delivery \(failing.id): \(error)")
        }
    }
}
