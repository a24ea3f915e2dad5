import ArgumentParser
import Baton
import BatonCommandLine
import BatonStore
import Foundation

struct WorkersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "workers", abstract: "List live workers: pools, slots, last heartbeat.")
    @Option(
        parsing: .unconditional,
        help: "Seconds since the last heartbeat for a worker to count as live (default: three of its heartbeat intervals and a second).")
    var within: Double?
    @Option(
        name: .customLong("wait-for"),
        help: ArgumentHelp(
            "Wait until live workers serve every one of these procedures, then list the workers; exit 3 if they do not in time.",
            valueName: "procedure[,procedure...]"))
    var waitFor: String?
    @Option(parsing: .unconditional, help: "With --wait-for: give up after this many seconds (default 60).") var timeout: Double?
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        if let within, !(within > 0) { throw CLIFailure("--within must be a positive number of seconds", exitCode: 2) }
        if timeout != nil && waitFor == nil { throw CLIFailure("--timeout only makes sense with --wait-for", exitCode: 2) }
        if let timeout, !(timeout > 0) { throw CLIFailure("--timeout must be a positive number of seconds", exitCode: 2) }
        let procedures = try waitFor.map(Self.procedures) ?? []
        let access = try connection.openRuns()
        defer { access.close() }
        let workers: [WorkerRow]
        if waitFor != nil {
            let seconds = timeout ?? 60
            let waited = try await WorkerWaiter(workers: access, procedures: procedures, within: within, timeout: seconds).wait()
            if !waited.missing.isEmpty {
                let names = waited.missing.joined(separator: ", ")
                throw CLIFailure("no live worker serves \(names) after waiting \(String(format: "%g", seconds)) s", exitCode: 3)
            }
            workers = waited.workers
        } else {
            workers = try await access.liveWorkers(within: within)
        }
        if output.json { try Output.json(workers); return }
        Output.table(
            ["WORKER", "HOST", "PID", "POOLS", "SLOTS", "LAST SEEN"],
            workers.map {
                [
                    $0.id, $0.host, String($0.pid), $0.pools.joined(separator: ","), String($0.slots),
                    String(format: "%.1f s ago", $0.secondsSinceSeen),
                ]
            })
    }

    /// The names `--wait-for` lists, comma-separated; an empty one is a usage error.
    static func procedures(_ list: String) throws -> [String] {
        let names = list.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        if names.contains(where: \.isEmpty) {
            throw CLIFailure("--wait-for needs procedure names separated by commas, got '\(list)'", exitCode: 2)
        }
        return names
    }
}
