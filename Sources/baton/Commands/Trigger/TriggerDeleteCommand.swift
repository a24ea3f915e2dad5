import ArgumentParser
import Baton
import BatonCommandLine
import BatonStore

struct TriggerDeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete", abstract: "Remove a trigger; the events it received and the runs it started stay.")
    @Argument(help: "Trigger name.") var name: String
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let store = try connection.openStore()
        defer { store.close() }
        guard try store.deleteTrigger(name, audit: TokenAudit.entry("trigger.delete", target: name)) else {
            throw CLIFailure("no trigger named '\(name)' (see `baton trigger list`)", exitCode: 2)
        }
        if output.json { Output.json(["name": .string(name), "deleted": true]) } else { print("trigger \(name) deleted") }
    }
}
