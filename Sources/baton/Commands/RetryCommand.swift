import ArgumentParser
import Baton
import BatonCommandLine
import BatonStore
import Foundation

struct RetryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retry",
        abstract: "Run a finished run again: its failed and cancelled nodes, or --from NODE and everything downstream. Stored outputs are reused.")
    @Argument(help: "Run id (or a unique prefix of it).") var runID: String
    @Option(help: "Rerun this node and everything downstream of it, and the failed or cancelled nodes it needs.") var from: String?
    @Flag(help: "Show live progress and exit non-zero unless the run succeeded.") var wait = false
    @Option(parsing: .unconditional, help: "Seconds to wait for the coordinator to apply the request.") var timeout: Double = 30
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        guard timeout >= 0 else { throw CLIFailure("--timeout must not be negative", exitCode: 2) }
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
