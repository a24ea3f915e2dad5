import ArgumentParser
import Baton
import BatonCommandLine
import BatonDemo
import BatonStore
import BatonYAML
import Foundation

struct ScheduleAddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add", abstract: "Validate a graph file as `baton submit` does and store it as a schedule.")
    @Argument(help: "Schedule name: a-z, 0-9, '_', '.', '-'.") var name: String
    @Argument(help: "Graph file (JSON, or YAML for .yaml/.yml).") var file: String
    @Option(help: ArgumentHelp("Five-field cron expression (minute hour day-of-month month day-of-week).", valueName: "expr")) var cron: String?
    @Option(help: ArgumentHelp("With --cron: the IANA time zone it is read in (default UTC).", valueName: "zone")) var timezone: String?
    @Option(help: ArgumentHelp("Fire every DURATION (1s or more, such as 30s, 5m, 1h) from now.", valueName: "duration")) var every: String?
    @Option(help: ArgumentHelp("When a time is due while the previous run goes: skip, queue or allow.", valueName: "rule")) var overlap = "skip"
    @Option(help: ArgumentHelp("Times missed while no coordinator fired them: none, last or all.", valueName: "rule")) var catchUp = "last"
    @Flag(help: "Accept procedures that no live worker serves yet.") var allowUnknownProcedures = false
    @Flag(help: "Do not check inputs against the procedures' schemas.") var noTypeCheck = false
    @OptionGroup var runInput: RunInputOptions
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let draft = ScheduleDraft(name: name, cron: cron, timezone: timezone, every: every, overlap: overlap, catchUp: catchUp)
        let checked: ScheduleDraft.Checked
        switch draft.check(.options) {
        case let .success(value): checked = value
        case let .failure(problem): throw CLIFailure(problem.description, exitCode: 2)
        }
        let bytes = try GraphFile.read(file)
        let input = try runInput.value()
        let store = try connection.openStore()
        defer { store.close() }
        let graph = try CheckedGraphFile(
            bytes, path: file, store: store, allowUnknownProcedures: allowUnknownProcedures, typeCheck: !noTypeCheck, input: input
        ).graph
        // The document as written, its input defaults unresolved: each firing merges `--input` over them again.
        let row = checked.row(document: try Self.document(bytes, path: file), graphName: graph.name, input: input)
        let stored: ScheduleRow
        do { stored = try store.addSchedule(row) } catch let exists as ScheduleExists {
            throw CLIFailure(exists.description, exitCode: 2)
        }
        let next = (try? stored.timing().get()).flatMap { $0.next(after: max(stored.createdAt, (try? store.databaseNow()) ?? 0)) }
        if output.json {
            var json = stored.json
            if case var .object(fields) = json {
                fields["next_fire_at"] = next.map { .string(CivilDate.iso8601($0)) } ?? .null
                json = .object(fields)
            }
            Output.json(json)
        } else {
            print("schedule \(name) added: \(stored.when), next at \(next.map(CivilDate.iso8601) ?? "-")")
        }
    }

    /// The graph file's document (JSON, or YAML's JSON meaning); `GraphFile.decode` has validated it.
    static func document(_ bytes: [UInt8], path: String) throws -> JSON {
        let limits = try Limits.fromEnvironment()
        do {
            if GraphFileDecoding.isYAML(path) {
                return try YAMLDocument.parse(bytes, maxDepth: limits.maxDepth, maxBytes: limits.maxGraphBytes).json
            }
            return try JSONParser.parse(bytes, maxDepth: limits.maxDepth)
        } catch {
            throw CLIFailure("\(path): \(error)", exitCode: 2)
        }
    }
}
