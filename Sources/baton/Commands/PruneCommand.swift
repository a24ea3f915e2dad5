import ArgumentParser
import Baton
import BatonCommandLine
import BatonStore

struct PruneCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prune",
        abstract: "Remove finished runs older than a duration, with their nodes and events (never a run still going).")
    @Option(help: ArgumentHelp("Remove runs that finished longer ago than this (30d, 12h, 2w).", valueName: "DURATION"))
    var olderThan: String
    @Option(help: ArgumentHelp("Also remove output-cache rows older than this (default: kept).", valueName: "DURATION"))
    var cacheOlderThan: String?
    @Flag(help: "Only count what would be removed.") var dryRun = false
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let age = try RetentionText.parse(olderThan, flag: "--older-than").get()
        let cacheAge = try cacheOlderThan.map { try RetentionText.parse($0, flag: "--cache-older-than").get() }
        let store = try connection.openStore()
        defer { store.close() }
        let report: PruneReport
        do { report = try store.prune(olderThan: age, cacheOlderThan: cacheAge, dryRun: dryRun) } catch {
            throw CLIFailure("prune failed: \(error)")
        }
        if report.busy { throw CLIFailure("another prune is at work (a coordinator's --retention, or another baton prune): try again later") }
        if output.json {
            Output.json([
                "dry_run": .bool(dryRun), "older_than": .string(olderThan), "runs": .int(Int64(report.runs)),
                "nodes": .int(Int64(report.nodes)), "events": .int(Int64(report.events)), "cache_rows": .int(Int64(report.cacheRows)),
                "partitions": .array(report.partitions.map { .string($0) }),
            ])
        } else if report.isEmpty {
            print("nothing to prune: no run finished more than \(olderThan) ago\(cacheOlderThan == nil ? "" : ", and no cache row that old")")
        } else {
            let verb = dryRun ? "would remove" : "removed"
            var line = "\(verb) \(report.runs) run(s) finished more than \(olderThan) ago, with \(report.nodes) node(s) and \(report.events) event(s)"
            if cacheOlderThan != nil { line += "; \(report.cacheRows) cache row(s)" }
            if !report.partitions.isEmpty {
                line += "; \(dryRun ? "would drop" : "dropped") whole partition(s) \(report.partitions.joined(separator: ", "))"
            }
            print(line)
        }
    }
}
