import ArgumentParser
import Baton
import BatonStore
import Foundation

struct CancelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "cancel",
        abstract: "Cancel a run: pending and waiting nodes at once, running ones are signalled to stop.")
    @Argument(help: "Run id (or a unique prefix of it).") var runID: String
    @Option(help: "Why, for the record (stored as the nodes' reason).") var reason: String?
    @Option(help: "Seconds to wait for the coordinator to apply the request.") var timeout: Double = 30
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        guard timeout >= 0 else { throw CLIFailure("--timeout must not be negative", exitCode: 2) }
        let (store, id) = try connection.openRun(runID)
        defer { store.close() }
        let before = try store.progress(ofRun: id).status
        if RunStatus(rawValue: before)?.isTerminal == true {
            throw CLIFailure("run \(id) already ended (\(before)); nothing to cancel")
        }
        let request = try store.request(.cancel, runID: id, reason: "cancelled: \(reason ?? "by request (baton cancel)")")
        let status = try RequestWaiter(store: store, requestID: request, runID: id, timeout: timeout).wait()
        if output.json {
            Output.json(["run_id": .string(id), "status": .string(status ?? before), "applied": .bool(status != nil)])
        } else if let status {
            print("run \(id) \(status)")
        } else {
            print("run \(id): cancel requested; no coordinator has applied it yet (it will when one runs)")
        }
    }
}

struct RetryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "retry",
        abstract: "Run a finished run again: its failed and cancelled nodes, or --from NODE and everything downstream. Stored outputs are reused.")
    @Argument(help: "Run id (or a unique prefix of it).") var runID: String
    @Option(help: "Rerun this node and everything downstream of it.") var from: String?
    @Flag(help: "Show live progress and exit non-zero unless the run succeeded.") var wait = false
    @Option(help: "Seconds to wait for the coordinator to apply the request.") var timeout: Double = 30
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let (store, id) = try connection.openRun(runID)
        defer { store.close() }
        let before = try store.progress(ofRun: id).status
        guard before == "failed" || before == "cancelled" else {
            throw CLIFailure("run \(id) is \(before); only a failed or cancelled run can be retried")
        }
        if let from, !(try store.nodes(ofRun: id).contains { $0.key == from }) {
            throw CLIFailure("run \(id) has no node '\(from)'", exitCode: 2)
        }
        let request = try store.request(.retry, runID: id, node: from)
        guard let status = try RequestWaiter(store: store, requestID: request, runID: id, timeout: timeout).wait() else {
            if output.json { Output.json(["run_id": .string(id), "status": .string(before), "applied": false]) }
            else { print("run \(id): retry requested; no coordinator has applied it yet (it will when one runs)") }
            return
        }
        guard wait else {
            if output.json { Output.json(["run_id": .string(id), "status": .string(status), "applied": true]) } else { print("run \(id) \(status)") }
            return
        }
        let final = try RunWaiter(store: store, runID: id, showProgress: !output.json, timeout: nil).wait()
        if output.json {
            var result: [(key: String, value: JSON)] = [("run_id", .string(id)), ("status", .string(final.status))]
            if let error = final.error { result.append(("error", .string(error))) }
            Output.json(.object(JSONObject(result)))
        } else if final.status == "succeeded" {
            print("run \(id) succeeded")
        }
        if final.status != "succeeded" { throw CLIFailure("run \(id) \(final.status)\(final.error.map { ": \($0)" } ?? "")") }
    }
}

/// Waits until the coordinator has handled a request; returns the run's status then, or nil on timeout.
struct RequestWaiter {
    let store: Store
    let requestID: Int
    let runID: String
    let timeout: Double

    func wait() throws -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try store.requestHandled(requestID) { return try store.progress(ofRun: runID).status }
            Thread.sleep(forTimeInterval: 0.05)  // a display's refresh, not synchronisation: the result is read from the database
        }
        return nil
    }
}
