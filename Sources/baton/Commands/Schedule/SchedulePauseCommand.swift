import ArgumentParser
import Baton
import BatonCommandLine
import BatonStore

struct SchedulePauseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "pause", abstract: "Stop firing a schedule until it is resumed.")
    @Argument(help: "Schedule name.") var name: String
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() async throws { try await SchedulePausing.set(name, paused: true, connection: connection, json: output.json) }
}
