import ArgumentParser
import Baton
import BatonCommandLine
import BatonDemo
import BatonStore
import BatonYAML
import Foundation

struct TriggerAddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Validate a graph file as `baton submit` does and start it, with the event's data as input, on each event of a type.")
    @Argument(help: "Trigger name: a-z, 0-9, '_', '.', '-'.") var name: String
    @Argument(help: "Graph file (JSON, or YAML for .yaml/.yml).") var file: String
    @Option(help: ArgumentHelp("The event type it starts on, such as order.created.", valueName: "type")) var event: String
    @Option(
        help: ArgumentHelp(
            "Only events whose data holds VALUE at the JSON Pointer (VALUE is JSON when it reads as JSON, else text); repeat for more, all must match.",
            valueName: "pointer=value")) var filter: [String] = []
    @Flag(help: "Accept procedures that no live worker serves yet.") var allowUnknownProcedures = false
    @Flag(help: "Do not check inputs against the procedures' schemas.") var noTypeCheck = false
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        if let problem = TriggerName.problem(name) { throw CLIFailure(problem, exitCode: 2) }
        if let problem = EventType.problem(event) { throw CLIFailure("--event: \(problem)", exitCode: 2) }
        var filters: [TriggerFilter] = []
        for text in filter {
            switch TriggerFilter.parse(text) {
            case let .success(parsed): filters.append(parsed)
            case let .failure(problem): throw CLIFailure("--filter \(problem.description)", exitCode: 2)
            }
        }
        if filters.count > 32 { throw CLIFailure("--filter: at most 32 filters", exitCode: 2) }
        let bytes = try GraphFile.read(file)
        let store = try connection.openStore()
        defer { store.close() }
        let graph = try CheckedGraphFile(bytes, path: file, store: store, allowUnknownProcedures: allowUnknownProcedures, typeCheck: !noTypeCheck)
            .graph
        // The document as written, its input defaults unresolved: each event's data is merged over them.
        var document = try ScheduleAddCommand.document(bytes, path: file)
        if case var .object(fields) = document, fields["name"] == nil {
            fields["name"] = .string(graph.name)
            document = .object(fields)
        }
        let row = TriggerRow(name: name, eventType: event, graph: document, filters: filters)
        let stored: TriggerRow
        do { stored = try store.addTrigger(row, audit: TokenAudit.entry("trigger.create", target: name)) } catch let exists as TriggerExists {
            throw CLIFailure(exists.description, exitCode: 2)
        }
        if output.json {
            Output.json(stored.json(graph: false))
        } else {
            let on = filters.isEmpty ? "" : " where " + filters.map(\.text).joined(separator: " and ")
            print("trigger \(name) added: starts \(stored.graphName) on \(event) events\(on)")
        }
    }
}
