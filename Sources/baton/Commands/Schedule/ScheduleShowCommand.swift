import ArgumentParser
import Baton
import BatonCommandLine
import BatonStore

struct ScheduleShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show a schedule and its recent runs.")
    @Argument(help: "Schedule name.") var name: String
    @Option(parsing: .unconditional, help: "How many recent runs to list.") var limit = 20
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        guard (1...1000).contains(limit) else { throw CLIFailure("--limit must be from 1 to 1000", exitCode: 2) }
        let access = try connection.openSchedules()
        defer { access.close() }
        let (schedule, runs) = try await access.schedule(named: name, runs: limit)
        if output.json {
            guard case var .object(fields) = schedule.json else { return }
            fields["runs"] = .array(
                runs.map {
                    [
                        "run_id": .string($0.id), "status": .string($0.status.rawValue), "key": .string($0.key),
                        "submitted_at": .string(CivilDate.iso8601($0.submittedAt)),
                    ]
                })
            Output.json(.object(fields))
            return
        }
        print("schedule \(schedule.name): \(schedule.when)\(schedule.paused ? " (paused)" : "")")
        print("  overlap \(schedule.overlap.rawValue), catch-up \(schedule.catchUp.rawValue), partition \(schedule.partition)")
        print("  last fired \(schedule.lastFiredAt.map(CivilDate.iso8601) ?? "-"), next \(schedule.nextFireAt.map(CivilDate.iso8601) ?? "-")")
        if schedule.skipped > 0 {
            print("  skipped \(schedule.skipped) due time(s); last: \(schedule.lastSkipReason ?? "-")")
        }
        if let error = schedule.lastError { print("  error: \(error)") }
        if runs.isEmpty {
            print("no runs yet")
        } else {
            Output.table(["RUN", "STATUS", "KEY", "SUBMITTED"], runs.map { [$0.id, $0.status.rawValue, $0.key, CivilDate.iso8601($0.submittedAt)] })
        }
    }
}
