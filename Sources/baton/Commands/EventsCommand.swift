import ArgumentParser
import Baton
import BatonCommandLine
import BatonStore

struct EventsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "events", abstract: "Print a run's event log.")
    @Argument(help: "Run id (or a unique prefix of it).") var runID: String
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let (store, id) = try connection.openRun(runID)
        defer { store.close() }
        var after = 0
        var all: [EventRow] = []
        while true {
            let page = try store.events(ofRun: id, after: after)
            all += page
            guard let last = page.last, page.count == 10_000 else { break }
            after = last.id
        }
        if output.json { try Output.json(all); return }
        for e in all { print(Output.eventLine(e)) }
    }
}
