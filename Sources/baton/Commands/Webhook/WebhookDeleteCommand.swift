import ArgumentParser
import Baton
import BatonCommandLine
import BatonStore
import Foundation

struct WebhookDeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete", abstract: "Delete a webhook: its deliveries not yet made are dropped.")
    @Argument(help: "The webhook's id (`baton webhook list`).") var id: String
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        guard let number = Int64(id), number > 0 else { throw CLIFailure("'\(id)' is not a webhook id (a positive number)", exitCode: 2) }
        let store = try connection.openStore()
        defer { store.close() }
        let audit = AuditEntry(action: "webhook.delete", source: "cli (OS user \(ProcessInfo.processInfo.userName))")
        guard try store.deleteWebhook(id: number, audit: audit) else {
            throw CLIFailure("no webhook \(number) (see `baton webhook list`)", exitCode: 2)
        }
        if output.json { Output.json(["id": .int(number), "deleted": true]) } else { print("webhook \(number) deleted") }
    }
}
