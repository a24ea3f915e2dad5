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
        try await Self.printPauses(of: Set(procedures.map(\.name)), connection)
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
