import ArgumentParser
import Baton
import BatonCommandLine

struct RunsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "runs", abstract: "List recent runs, newest first.")
    @Option(help: "Only runs with this status (pending, running, succeeded, failed, cancelled).") var status: String?
    @Option(parsing: .unconditional, help: "How many runs to list.") var limit = 20
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        var wanted: RunStatus?
        if let status {
            guard let known = RunStatus(rawValue: status) else {
                throw CLIFailure(
                    "--status: unknown status '\(status)' (use \(RunStatus.allCases.map(\.rawValue).joined(separator: ", ")))", exitCode: 2)
            }
            wanted = known
        }
        guard limit >= 1, limit <= 10_000 else { throw CLIFailure("--limit must be from 1 to 10000, got \(limit)", exitCode: 2) }
        let access = try connection.openRuns()
        defer { access.close() }
        let runs = try await access.runs(status: wanted, limit: limit)
        if output.json { try Output.json(runs); return }
        Output.table(
            ["RUN", "NAME", "STATUS", "NODES", "SUBMITTED", "ERROR"],
            runs.map {
                [
                    $0.id, Output.truncate($0.name, 30), $0.statusText, "\($0.nodesDone)/\($0.nodeCount)", Output.time($0.submittedAt),
                    Output.truncate($0.error ?? "", 60),
                ]
            })
    }
}
