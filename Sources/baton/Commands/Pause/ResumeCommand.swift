import ArgumentParser
import BatonCommandLine

struct ResumeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume", abstract: "End a pause (`baton pause`): the nodes it held go out, in order.")
    @OptionGroup var arguments: PauseArguments
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() async throws { try await Pausing.set(arguments, paused: false, connection: connection, json: output.json) }
}
