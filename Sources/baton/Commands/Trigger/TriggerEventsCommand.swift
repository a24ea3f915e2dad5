import ArgumentParser
import Baton
import BatonCommandLine
import BatonStore

struct TriggerEventsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events", abstract: "List the events received by POST /api/v1/events, newest first, with the runs they started.")
    @Option(help: ArgumentHelp("Only events of this type.", valueName: "type")) var type: String?
    @Option(parsing: .unconditional, help: "How many of the newest events to list.") var limit = 20
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        guard (1...1000).contains(limit) else { throw CLIFailure("--limit must be from 1 to 1000", exitCode: 2) }
        if let type, let problem = EventType.problem(type) { throw CLIFailure("--type: \(problem)", exitCode: 2) }
        let store = try connection.openStore()
        defer { store.close() }
        let events = try store.triggerEvents(type: type, limit: limit)
        if output.json {
            Output.json(.array(events.map(\.json)))
            return
        }
        if events.isEmpty {
            print("no events received (post one to POST /api/v1/events; see docs/api.md)")
            return
        }
        Output.table(
            ["RECEIVED", "TYPE", "ID", "RUNS"],
            events.map { e in
                let runs = e.matched.map { name -> String in
                    guard let run = e.runs.first(where: { $0.trigger == name }) else { return "\(name): not started yet" }
                    if let id = run.runID { return "\(name): \(id) \(run.status?.rawValue ?? "")".trimmingCharacters(in: .whitespaces) }
                    return "\(name): \(run.error ?? "not started")"
                }
                return [e.receivedAt, e.type, e.id, runs.isEmpty ? "-" : runs.joined(separator: "; ")]
            })
    }
}
