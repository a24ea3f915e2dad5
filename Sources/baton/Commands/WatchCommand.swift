import ArgumentParser
import Baton
import BatonCommandLine
import BatonStore
import Foundation

struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Follow a run's event log live until the run ends; exits non-zero unless it succeeded.")
    @Argument(help: "Run id (or a unique prefix of it).") var runID: String
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let access = try connection.openRuns()
        defer { access.close() }
        let id = try await access.resolveRunID(runID)
        var after = 0
        var unserved: [String] = []
        var lastUnservedCheck = Date.distantPast
        while true {
            // Read the status first: events written before it ended are then surely in the next read.
            let progress = try await access.progress(ofRun: id)
            let page = try await access.events(ofRun: id, after: after)
            for event in page {
                if output.json { print(try Output.encode(event).serialized()) } else { print(Output.eventLine(event)) }
                after = event.id
            }
            // Queued nodes that no live worker serves wait; say so on stderr whenever that changes.
            if Date().timeIntervalSince(lastUnservedCheck) >= 2 {
                lastUnservedCheck = Date()
                let now = try await access.unserved(ofRun: id, limit: 5)
                if now != unserved, !now.isEmpty { Output.error("waiting for a worker: " + now.joined(separator: ", ")) }
                unserved = now
            }
            fflush(nil)  // each event shows as it happens, also through a pipe
            if progress.status.isTerminal, page.isEmpty {
                if progress.status != .succeeded {
                    throw CLIFailure("run \(id) \(progress.status.rawValue)\(progress.error.map { ": \($0)" } ?? "")")
                }
                return
            }
            // A live display's refresh (the server's wait, remote).
            if page.isEmpty { _ = try await access.awaitChange(ofRun: id, after: after, refresh: .milliseconds(200)) }
        }
    }
}
