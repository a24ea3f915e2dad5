import ArgumentParser
import Baton
import BatonCommandLine
import BatonStore
import Foundation

struct CancelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel",
        abstract: "Cancel a run: pending and waiting nodes at once, running ones are signalled to stop. --where cancels every run a filter matches.")
    @Argument(help: "Run id (or a unique prefix of it).") var runID: String?
    @Option(
        name: .customLong("where"),
        help:
            "Cancel every pending or running run that matches: status=, name=GLOB, since=DURATION, procedure=, error_type=, schedule= (comma-separated; may repeat)."
    )
    var filters: [String] = []
    @Flag(help: "With --where: say how many runs and which (the first 10), changing nothing.") var dryRun = false
    @Option(help: "Why, for the record (stored as the nodes' reason).") var reason: String?
    @Option(parsing: .unconditional, help: "Seconds to wait for the coordinator to apply the request.") var timeout: Double = 30
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        guard timeout >= 0 else { throw CLIFailure("--timeout must not be negative", exitCode: 2) }
        try BulkRequestOutput.usage("cancel", runID: runID, filters: filters, dryRun: dryRun)
        guard let runID else {
            let filter = try BulkRequestOutput.filter(filters, for: .cancel)
            let access = try connection.openRuns()
            defer { access.close() }
            let answer = try await access.bulk(.cancel, filter, reason: reason, dryRun: dryRun, timeout: timeout)
            BulkRequestOutput.show(answer, json: output.json)
            return
        }
        let access = try connection.openRuns()
        defer { access.close() }
        let id = try await access.resolveRunID(runID)
        let answer = try await access.request(cancel: true, id, reason: reason, from: nil, timeout: timeout)
        RunRequestOutput.show(id, answer, requested: "cancel", json: output.json)
    }
}
