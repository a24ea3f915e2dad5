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
        let triggered: ScheduleTriggered
        do {
            guard let fired = try store.triggerSchedule(name, limits: try Limits.fromEnvironment()) else { throw ScheduleLookup.unknown(name) }
            triggered = fired
        } catch let problem as ScheduleInputError {
            throw CLIFailure(problem.description)
        }
        let (run, key) = (triggered.runID, triggered.key)
        if output.json {
            Output.json(["name": .string(name), "run_id": .string(run), "key": .string(key)])
        } else {
            print(run)
        }
    }
}
