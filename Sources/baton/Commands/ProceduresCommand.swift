import ArgumentParser
import Baton
import BatonCommandLine
import BatonDemo
import BatonStore

struct ProceduresCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "procedures", abstract: "List the procedures that live workers serve, with their input and output schemas.")
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let access = try connection.openRuns()
        defer { access.close() }
        let procedures = try await access.procedures()
        if output.json {
            Output.json(
                .array(procedures.map { p in ["name": .string(p.name), "input": p.input?.json ?? .null, "output": p.output?.json ?? .null] }))
            return
        }
        Output.table(["PROCEDURE", "INPUT", "OUTPUT"], procedures.map { [$0.name, $0.input?.brief ?? "?", $0.output?.brief ?? "?"] })
    }
}
