import ArgumentParser
import Baton
import BatonCommandLine
import BatonStore
import Foundation

struct WebhookAddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add a webhook; print its id, and its secret once if it was made here.")
    @Argument(help: "The receiver: an http:// or https:// URL, POSTed to for each event.") var url: String
    @Option(
        help: ArgumentHelp(
            "Comma-separated event kinds: run.succeeded, run.failed, run.cancelled, node.failed, node.retrying, signal.waiting (or run.*, node.*, all).",
            valueName: "KINDS"))
    var events: String
    @Option(help: ArgumentHelp("Only runs whose name matches GLOB (`*` any text, `?` one character).", valueName: "name=GLOB")) var filter: String?
    @Option(help: "The signing secret (16 to 256 printable characters); without it one is made and printed once.") var secret: String?
    @Option(help: "json (the event as JSON) or slack (a Slack incoming-webhook message).") var format = "json"
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        var glob: String?
        if let filter {
            guard filter.hasPrefix("name=") else {
                throw CLIFailure("--filter '\(filter)': only name=GLOB is supported", exitCode: 2)
            }
            glob = String(filter.dropFirst("name=".count))
        }
        let draft: WebhookDraft
        switch WebhookDraft.make(url: url, events: events, nameGlob: glob, secret: secret, format: format) {
        case let .success(d): draft = d
        case let .failure(problem): throw CLIFailure(problem.description, exitCode: 2)
        }
        let store = try connection.openStore()
        defer { store.close() }
        let row = try store.addWebhook(
            draft, audit: AuditEntry(action: "webhook.create", source: "cli (OS user \(ProcessInfo.processInfo.userName))"))
        if output.json {
            var json = row.json.objectValue ?? JSONObject([])
            json["secret"] = draft.secretGenerated ? .string(draft.secret) : .null
            Output.json(.object(json))
            return
        }
        print(row.id)
        if draft.secretGenerated { print(draft.secret) }
        let kinds = row.events.map(\.rawValue).joined(separator: ", ")
        let note = draft.secretGenerated ? "; its secret is above, shown only now" : ""
        FileHandle.standardError.write(Data("webhook \(row.id) added: \(kinds) to \(row.url)\(note)\n".utf8))
    }
}
