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
        try await Self.printPauses(of: Set(procedures.map(\.procedure)), connection)
    }

    /// Those of `listed` that are paused (`baton pause procedure`), under the table: nothing of theirs
    /// is dispatched. (`baton pause list` lists every pause.)
    static func printPauses(of listed: Set<String>, _ connection: ConnectionOptions) async throws {
        let access = try connection.openPauses()
        defer { access.close() }
        let paused = try await access.pauses().filter { $0.target.kind == .procedure && listed.contains($0.target.name) }
        guard !paused.isEmpty else { return }
        print("\npaused (nothing of theirs is dispatched; `baton resume procedure NAME`): " + paused.map(\.target.name).joined(separator: ", "))
    }
}
