import Baton
import BatonCommandLine
import BatonStore

/// The schedule commands on the database itself.
extension DirectRuns: ScheduleAccess {
    func schedules() async throws -> [ScheduleRow] { try store.schedules() }

    func schedule(named name: String, runs: Int) async throws -> (schedule: ScheduleRow, runs: [ScheduleRun]) {
        let schedule = try ScheduleLookup.find(name, in: store)
        return (schedule, try store.scheduleRuns(name, limit: runs))
    }

    func setPaused(_ name: String, _ paused: Bool) async throws {
        guard try store.setSchedulePaused(name, paused) else { throw ScheduleLookup.unknown(name) }
    }

    func trigger(_ name: String) async throws -> (runID: String, key: String) {
        do {
            guard let fired = try store.triggerSchedule(name, limits: try Limits.fromEnvironment()) else { throw ScheduleLookup.unknown(name) }
            return (fired.runID, fired.key)
        } catch let problem as ScheduleInputError {
            throw CLIFailure(problem.description)
        }
    }
}
