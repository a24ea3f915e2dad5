import ArgumentParser
import Baton
import BatonCommandLine
import BatonDemo
import BatonStore

struct ProceduresCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "procedures",
        abstract:
            "List each version of the procedures live workers serve or unfinished runs need, with its input and output schemas and how many unfinished runs need it."
    )
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let access = try connection.openRuns()
        defer { access.close() }
        let procedures = try await access.procedures()
        if output.json {
            Output.json(.array(procedures.map(\.json)))
            return
        }
        Output.table(
            ["PROCEDURE", "VERSION", "INPUT", "OUTPUT", "UNFINISHED RUNS"],
            procedures.map { p in
                [
                    p.procedure, String(p.version) + (p.served ? "" : " (no live worker)"), p.input?.brief ?? "?", p.output?.brief ?? "?",
                    String(p.unfinishedRuns),
                ]
            })
    }
}
