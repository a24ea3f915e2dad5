import ArgumentParser
import Baton
import BatonCommandLine
import BatonStore
import Foundation

struct RetryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retry",
        abstract: "Run a finished run again: its failed and cancelled nodes, or --from NODE and everything downstream. Stored outputs are reused.")
    @Argument(help: "Run id (or a unique prefix of it).") var runID: String
    @Option(help: "Rerun this node and everything downstream of it, and the failed or cancelled nodes it needs.") var from: String?
    @Flag(help: "Show live progress and exit non-zero unless the run succeeded.") var wait = false
    @Option(parsing: .unconditional, help: "Seconds to wait for the coordinator to apply the request.") var timeout: Double = 30
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        guard timeout >= 0 else { throw CLIFailure("--timeout must not be negative", exitCode: 2) }
        let (store, id) = try connection.openRun(runID)
        defer { store.close() }
        let before = try store.progress(ofRun: id).status
        guard before == .failed || before == .cancelled else {
            throw CLIFailure("run \(id) is \(before.rawValue); only a failed or cancelled run can be retried")
        }
        if let from {  // the coordinator would ignore a retry that cannot succeed: say so now, and why
            let state: RunState?
            do { state = try store.loadRun(id) } catch { throw CLIFailure("\(error)") }
            guard let state else { throw CLIFailure("no run with id \(id)") }
            guard state.graph.nodes[from] != nil else { throw CLIFailure("run \(id) has no node '\(from)'", exitCode: 2) }
            do { _ = try state.nodesToRetry(from: from) } catch {
                throw CLIFailure("cannot retry run \(id) from '\(from)': \(error.description)", exitCode: 2)
            }
        }
        let request = try store.request(.retry, runID: id, node: from)
        guard let status = try RequestWaiter(store: store, requestID: request, runID: id, timeout: timeout).wait() else {
            if output.json {
                Output.json(["run_id": .string(id), "status": .string(before.rawValue), "applied": false])
            } else {
                print("run \(id): retry requested; no coordinator has applied it yet (it will when one runs)")
            }
            return
        }
        guard wait else {
            if output.json {
                Output.json(["run_id": .string(id), "status": .string(status.rawValue), "applied": true])
            } else {
                print("run \(id) \(status.rawValue)")
            }
            return
        }
        let final = try RunWaiter(store: store, runID: id, showProgress: !output.json, timeout: nil).wait()
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
