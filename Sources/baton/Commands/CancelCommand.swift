import ArgumentParser
import Baton
import BatonCommandLine
import BatonStore
import Foundation

struct CancelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel",
        abstract: "Cancel a run: pending and waiting nodes at once, running ones are signalled to stop.")
    @Argument(help: "Run id (or a unique prefix of it).") var runID: String
    @Option(help: "Why, for the record (stored as the nodes' reason).") var reason: String?
    @Option(parsing: .unconditional, help: "Seconds to wait for the coordinator to apply the request.") var timeout: Double = 30
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        guard timeout >= 0 else { throw CLIFailure("--timeout must not be negative", exitCode: 2) }
        let (store, id) = try connection.openRun(runID)
        defer { store.close() }
        let before = try store.progress(ofRun: id).status
        if before.isTerminal {
            throw CLIFailure("run \(id) already ended (\(before.rawValue)); nothing to cancel")
        }
        let request = try store.request(.cancel, runID: id, reason: "cancelled: \(reason ?? "by request (baton cancel)")")
        let status = try RequestWaiter(store: store, requestID: request, runID: id, timeout: timeout).wait()
        if output.json {
            Output.json(["run_id": .string(id), "status": .string((status ?? before).rawValue), "applied": .bool(status != nil)])
        } else if let status {
            print("run \(id) \(status.rawValue)")
        } else {
            print("run \(id): cancel requested; no coordinator has applied it yet (it will when one runs)")
        }
    }
}
