import ArgumentParser
import Baton
import BatonStore

struct ProceduresCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "procedures", abstract: "List the procedures that live workers serve.")
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let store = try connection.openStore()
        defer { store.close() }
        let names = try store.servedProcedures().sorted()
        if output.json { Output.json(.array(names.map(JSON.string))); return }
        for name in names { print(name) }
    }
}
