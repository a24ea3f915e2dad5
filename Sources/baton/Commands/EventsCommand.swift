import ArgumentParser
import Baton
import BatonCommandLine
import BatonStore

struct EventsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "events", abstract: "Print a run's event log.")
    @Argument(help: "Run id (or a unique prefix of it).") var runID: String
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let access = try connection.openRuns()
        defer { access.close() }
        let id = try await access.resolveRunID(runID)
        let all = try await access.events(ofRun: id, after: 0)
        if output.json { try Output.json(all); return }
        for e in all { print(Output.eventLine(e)) }
    }
}
