import ArgumentParser
import Baton
import BatonCommandLine
import BatonStore

struct ScheduleTriggerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trigger", abstract: "Fire a schedule now, outside its times (key schedule:NAME:trigger:TIME); prints the run id.")
    @Argument(help: "Schedule name.") var name: String
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let store = try connection.openStore()
        defer { store.close() }
        let schedule = try ScheduleLookup.find(name, in: store)
        let limits = try Limits.fromEnvironment()
        let graph: Graph
        do { graph = try GraphDecoder(limits: limits).decode(schedule.graph, input: schedule.input, defaultName: schedule.name) } catch {
            throw CLIFailure("schedule \(name): the stored graph no longer validates: \(error.problems.map(\.description).joined(separator: "; "))")
        }
        let key = ScheduleRow.keyPrefix(name) + "trigger:" + CivilDate.iso8601(try store.databaseNow())
        let run = try store.submit(graph, idempotencyKey: key)
        try store.setScheduleLastRun(name, runID: run.id)
        if output.json {
            Output.json(["name": .string(name), "run_id": .string(run.id), "key": .string(key)])
        } else {
            print(run.id)
        }
    }
}
