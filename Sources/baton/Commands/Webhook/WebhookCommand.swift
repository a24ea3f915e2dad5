import ArgumentParser

/// `baton webhook …`: events posted, signed, to HTTP receivers (docs/api.md, "Webhooks").
struct WebhookCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webhook",
        abstract: "Post run and node events, signed, to an HTTP receiver: add, list, delete, deliveries.",
        subcommands: [WebhookAddCommand.self, WebhookListCommand.self, WebhookDeleteCommand.self, WebhookDeliveriesCommand.self])
}
