import ArgumentParser
import Baton
import BatonCommandLine
import BatonStore

struct ShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show a run's nodes: state, attempts, timings, worker, error, output.")
    @Argument(help: "Run id (or a unique prefix of it).") var runID: String
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let (store, id) = try connection.openRun(runID)
        defer { store.close() }
        guard let summary = try store.run(id) else { throw CLIFailure("no run with id \(id)") }
        let nodes = try store.nodes(ofRun: id)
        if output.json {
            var json = try Output.encode(summary).objectValue!
            json["nodes"] = try Output.encode(nodes)
            Output.json(.object(json))
            return
        }
        print("run \(summary.id)  \(summary.name)")
        print(
            "status \(summary.status.rawValue)  submitted \(Output.time(summary.submittedAt))  started \(Output.time(summary.startedAt))  finished \(Output.time(summary.finishedAt))"
        )
        if let error = summary.error { print("error \(error)") }
        if summary.input != .object(JSONObject()) { print("input \(Output.truncate(summary.input.serialized(), 200))") }
        print("")
        Output.table(
            ["NODE", "PROCEDURE", "STATUS", "ATTEMPTS", "SECONDS", "WORKER", "OUTPUT / ERROR"],
            nodes.map { n in
                [
                    n.key, n.procedure, n.status, String(n.attempts), n.seconds.map { String(format: "%.3f", $0) } ?? "-",
                    n.workerText ?? "-", Output.truncate(n.error ?? n.output?.serialized() ?? "", 80),
                ]
            })
        if nodes.contains(where: { $0.lostWorkers != nil }) {
            print("\n(after w): worker w had an attempt of the node and stopped before it reported; see baton events \(id.prefix(8))")
        }
    }
}
