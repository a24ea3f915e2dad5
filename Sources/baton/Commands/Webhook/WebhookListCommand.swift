import ArgumentParser
import Baton
import BatonCommandLine
import BatonStore

struct WebhookListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the webhooks (never their secrets).")
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let store = try connection.openStore()
        defer { store.close() }
        let hooks = try store.webhooks()
        if output.json {
            Output.json(.array(hooks.map(\.json)))
            return
        }
        if hooks.isEmpty {
            print("no webhooks (add one with `baton webhook add URL --events run.failed`)")
            return
        }
        Output.table(
            ["ID", "URL", "EVENTS", "NAME", "FORMAT", "CREATED"],
            hooks.map { h in
                [
                    String(h.id), h.url, h.events.map(\.rawValue).joined(separator: ","), h.nameGlob ?? "*", h.format.rawValue,
                    CivilDate.iso8601(h.createdAt),
                ]
            })
    }
}
