import ArgumentParser
import Baton
import BatonCommandLine
import BatonStore

struct TriggerListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the triggers with their event type and filters.")
    @Option(help: ArgumentHelp("Only triggers of this event type.", valueName: "type")) var event: String?
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        if let event, let problem = EventType.problem(event) { throw CLIFailure("--event: \(problem)", exitCode: 2) }
        let store = try connection.openStore()
        defer { store.close() }
        let triggers = try store.triggers(eventType: event)
        if output.json {
            Output.json(.array(triggers.map { $0.json(graph: false) }))
            return
        }
        if triggers.isEmpty {
            print("no triggers (add one with `baton trigger add NAME FILE --event TYPE`)")
            return
        }
        Output.table(
            ["NAME", "EVENT", "FILTERS", "GRAPH", "CREATED", "BY"],
            triggers.map { t in
                [
                    t.name, t.eventType, t.filters.isEmpty ? "-" : t.filters.map(\.text).joined(separator: " "), t.graphName, t.createdAt,
                    t.createdBy ?? "-",
                ]
            })
    }
}
