import ArgumentParser
import Baton
import BatonCommandLine
import BatonStore

struct ScheduleResumeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume", abstract: "Fire a paused schedule again, from now (times due while paused are not caught up).")
    @Argument(help: "Schedule name.") var name: String
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() async throws { try await SchedulePausing.set(name, paused: false, connection: connection, json: output.json) }
}
