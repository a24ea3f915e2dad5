import ArgumentParser
import Baton
import BatonCommandLine
import BatonDemo
import BatonStore

struct ProceduresCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "procedures", abstract: "List the procedures that live workers serve, with their input and output schemas.")
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let store = try connection.openStore()
        defer { store.close() }
        let workers = try store.liveWorkers()
        let names = Set(workers.flatMap(\.procedures)).sorted()
        // What the workers published; for a worker that published none yet, what this baton knows.
        let schemas = Store.inputSchemas(of: workers, over: .demo)
        if output.json {
            Output.json(
                .array(
                    names.map { name in
                        ["name": .string(name), "input": schemas[name]?.input.json ?? .null, "output": schemas[name]?.output.json ?? .null]
                    }))
            return
        }
        Output.table(
            ["PROCEDURE", "INPUT", "OUTPUT"], names.map { [$0, schemas[$0]?.input.brief ?? "?", schemas[$0]?.output.brief ?? "?"] })
    }
}
