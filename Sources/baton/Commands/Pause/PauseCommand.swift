import ArgumentParser
import BatonCommandLine

struct PauseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pause",
        abstract: "Stop dispatching new tasks of a procedure, a pool or a run (or stop a schedule firing); `baton pause list` lists the pauses.",
        discussion: """
            Running attempts finish; nodes that would go out wait, holding no slot (`baton show` says why), \
            until `baton resume` lets them go on in order. Pauses are stored: they outlive coordinators.
            """)
    @OptionGroup var arguments: PauseArguments
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() async throws { try await Pausing.set(arguments, paused: true, connection: connection, json: output.json) }
}
