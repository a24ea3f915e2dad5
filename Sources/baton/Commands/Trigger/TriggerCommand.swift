import ArgumentParser

/// `baton trigger …`: graphs started by events posted to the server (`POST /api/v1/events`).
struct TriggerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trigger", abstract: "Start a graph on events posted to `baton server` (POST /api/v1/events): add, list, delete, events.",
        subcommands: [TriggerAddCommand.self, TriggerListCommand.self, TriggerDeleteCommand.self, TriggerEventsCommand.self])
}
