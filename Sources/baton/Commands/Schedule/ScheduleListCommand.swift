import ArgumentParser
import Baton
import BatonCommandLine
import BatonStore

struct ScheduleListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the schedules with their last and next firing.")
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let access = try connection.openSchedules()
        defer { access.close() }
        let schedules = try await access.schedules()
        if output.json {
            Output.json(.array(schedules.map(\.json)))
            return
        }
        if schedules.isEmpty {
            print("no schedules (add one with `baton schedule add NAME FILE --cron EXPR`)")
            return
        }
        Output.table(
            ["NAME", "WHEN", "OVERLAP", "CATCH-UP", "STATE", "LAST FIRED", "NEXT", "LAST RUN"],
            schedules.map { s in
                [
                    s.name, s.when, s.overlap.rawValue, s.catchUp.rawValue, s.paused ? "paused" : "active",
                    s.lastFiredAt.map(CivilDate.iso8601) ?? "-", s.paused ? "-" : (s.nextFireAt.map(CivilDate.iso8601) ?? "(soon)"),
                    s.lastRunID.map { "\($0) \(s.lastRunStatus?.rawValue ?? "")" } ?? "-",
                ]
            })
    }
}
