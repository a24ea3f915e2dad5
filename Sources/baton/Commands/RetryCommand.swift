import ArgumentParser
import Baton
import BatonCommandLine
import BatonStore
import Foundation

struct RetryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retry",
        abstract:
            "Run a finished run again: its failed and cancelled nodes, or --from NODE and everything downstream. Stored outputs are reused. --where retries every run a filter matches."
    )
    @Argument(help: "Run id (or a unique prefix of it).") var runID: String?
    @Option(
        name: .customLong("where"),
        help:
            "Retry every failed or cancelled run that matches: status=, name=GLOB, since=DURATION, procedure=, error_type=, schedule= (comma-separated; may repeat)."
    )
    var filters: [String] = []
    @Flag(help: "With --where: say how many runs and which (the first 10), changing nothing.") var dryRun = false
    @Option(help: "Rerun this node and everything downstream of it, and the failed or cancelled nodes it needs.") var from: String?
    @Flag(help: "Show live progress and exit non-zero unless the run succeeded.") var wait = false
    @Option(parsing: .unconditional, help: "Seconds to wait for the coordinator to apply the request.") var timeout: Double = 30
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        guard timeout >= 0 else { throw CLIFailure("--timeout must not be negative", exitCode: 2) }
        try BulkRequestOutput.usage("retry", runID: runID, filters: filters, dryRun: dryRun)
        guard let runID else {
            if from != nil { throw CLIFailure("--from names a node of one run; it does not go with --where", exitCode: 2) }
            if wait { throw CLIFailure("--wait follows one run; it does not go with --where", exitCode: 2) }
            let filter = try BulkRequestOutput.filter(filters, for: .retry)
            let access = try connection.openRuns()
            defer { access.close() }
            let answer = try await access.bulk(.retry, filter, reason: nil, dryRun: dryRun, timeout: timeout)
            BulkRequestOutput.show(answer, json: output.json)
            return
        }
        let access = try connection.openRuns()
        defer { access.close() }
        let id = try await access.resolveRunID(runID)
        let answer = try await access.request(cancel: false, id, reason: nil, from: from, timeout: timeout)
        guard answer.applied, wait else {
            RunRequestOutput.show(id, answer, requested: "retry", json: output.json)
            return
        }
        let final = try await RunWaiter(runs: access, runID: id, showProgress: !output.json, timeout: nil).wait()
        if output.json {
            var result: [(key: String, value: JSON)] = [("run_id", .string(id)), ("status", .string(final.status.rawValue))]
            if let error = final.error { result.append(("error", .string(error))) }
            Output.json(.object(JSONObject(result)))
        } else if final.status == .succeeded {
            print("run \(id) succeeded")
        }
        if final.status != .succeeded { throw CLIFailure("run \(id) \(final.status.rawValue)\(final.error.map { ": \($0)" } ?? "")") }
    }
}
