import ArgumentParser
import Baton
import BatonCommandLine
import BatonStore

struct ScheduleDeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "delete", abstract: "Remove a schedule; the runs it fired stay.")
    @Argument(help: "Schedule name.") var name: String
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let store = try connection.openStore()
        defer { store.close() }
        guard try store.deleteSchedule(name) else { throw ScheduleLookup.unknown(name) }
        if output.json { Output.json(["name": .string(name), "deleted": true]) } else { print("schedule \(name) deleted") }
    }
}
