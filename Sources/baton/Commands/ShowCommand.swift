import ArgumentParser
import Baton
import BatonCommandLine
import BatonDrawing
import BatonStore
import Foundation

struct ShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show a run's nodes: state, attempts, timings, worker, error, output; or its timeline.")
    /// Nodes the timeline draws unless `--all`.
    static let timelineRows = 50

    @Argument(help: "Run id (or a unique prefix of it).") var runID: String
    @Flag(name: .long, help: "Draw the run's timeline: per node its attempts (queued, running, outcome) and waits.")
    var timeline = false
    @Option(name: .long, help: "With --timeline: characters per line (default: $COLUMNS, the terminal's width, or 100).")
    var width: Int?
    @Flag(name: .long, help: "With --timeline: draw every node (default: the first \(ShowCommand.timelineRows) by first activity).")
    var all = false
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if !timeline, width != nil { throw ValidationError("--width needs --timeline") }
        if !timeline, all { throw ValidationError("--all needs --timeline") }
        if let width, !(TimelineRenderer.minimumWidth...10_000).contains(width) {
            throw ValidationError("--width: \(width) is not from \(TimelineRenderer.minimumWidth) to 10000 characters")
        }
    }

    func run() async throws {
        let access = try connection.openRuns()
        defer { access.close() }
        let id = try await access.resolveRunID(runID)
        let summary = try await access.run(id)
        if timeline { return try await showTimeline(access, summary) }
        let nodes = try await access.nodes(ofRun: id)
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
                    n.key, n.procedure, n.statusText, String(n.attempts), n.seconds.map { String(format: "%.3f", $0) } ?? "-",
                    n.workerText ?? "-", Output.truncate(n.error ?? n.output?.serialized() ?? "", 80),
                ]
            })
        if nodes.contains(where: { $0.waitingFor == WaitReason.paused.rawValue }) {
            print("\n(paused): the node waits for a pause of its run, pool or procedure to end; see `baton pause list`, `baton resume`")
        }
        let unserved = try await access.unserved(ofRun: id, limit: 5)
        if !unserved.isEmpty {
            print("\n" + Self.waitingLine(unserved, nodes: nodes, served: try await access.procedures().filter(\.served)))
        }
        if nodes.contains(where: { $0.lostWorkers != nil }) {
            print("\n(after w): worker w had an attempt of the node and stopped before it reported; see baton events \(id.prefix(8))")
        }
    }

    /// Why queued nodes wait: no live worker serves their procedure's version in their pool, and which
    /// versions of those procedures live workers do serve.
    static func waitingLine(_ unserved: [String], nodes: [NodeRow], served: [ProcedureVersionRow]) -> String {
        let waiting = Set(nodes.filter { $0.status == NodeStatus.queued.rawValue }.map(\.procedure))
        let bases = Set(waiting.map { ProcedureName(parsing: $0)?.base ?? $0 })
        let others = bases.sorted().compactMap { base -> String? in
            let versions = served.filter { $0.procedure == base }.map { String($0.version) }
            return versions.isEmpty ? nil : "\(base): live workers serve version \(versions.joined(separator: ", ")) only"
        }
        return "waiting for a worker: \(unserved.joined(separator: ", ")): no live worker serves that procedure version in that pool; "
            + "the nodes wait, queued, until one starts (baton procedures)" + (others.isEmpty ? "" : "; " + others.joined(separator: "; "))
    }

    /// `--timeline`: the drawing (`TimelineRenderer`), or with `--json` the intervals (`RunTimeline.json`).
    private func showTimeline(_ access: any RunAccess, _ summary: RunRow) async throws {
        let (status, timeline) = try await access.timeline(ofRun: summary.id)
        if output.json {
            Output.json(timeline.document(run: summary.id, status: status))
            return
        }
        let terminal = Terminal.current(widthFlag: width)
        let renderer = TimelineRenderer(
            width: terminal.width, color: terminal.color, maxRows: all ? nil : Self.timelineRows, moreHint: " (--all draws every node)")
        print("run \(summary.id)  \(summary.name)  \(status.rawValue)  \(TimelineRenderer.duration(timeline.duration))")
        print("")
        print(renderer.render(timeline), terminator: "")
    }
}
