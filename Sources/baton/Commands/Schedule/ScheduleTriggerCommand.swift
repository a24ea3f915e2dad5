import ArgumentParser
import Baton
import BatonCommandLine
import BatonStore

struct ScheduleTriggerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trigger", abstract: "Fire a schedule now, outside its times (key schedule:NAME:trigger:TIME); prints the run id.")
    @Argument(help: "Schedule name.") var name: String
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let access = try connection.openSchedules()
        defer { access.close() }
        let (run, key) = try await access.trigger(name)
        if output.json {
            Output.json(["name": .string(name), "run_id": .string(run), "key": .string(key)])
        } else {
            print(run)
        }
    }
}
