import Baton
import BatonClient
import BatonCommandLine
import BatonDashboard
import BatonStore
import Foundation

/// The schedule commands through `baton server`'s API: `GET /schedules`, `GET /schedules/{name}?runs=N`,
/// `POST /schedules/{name}/pause|resume|trigger`. The API's schedule (`ScheduleRow.json`) becomes the row.
extension RemoteRuns: ScheduleAccess {
    func schedules() async throws -> [ScheduleRow] {
        var rows: [ScheduleRow] = []
        var cursor: String?
        repeat {
            let page = try await call("GET", "/schedules?limit=1000" + (cursor.map { "&cursor=\(Self.query($0))" } ?? ""))
            rows += try (page["schedules"]?.arrayValue ?? []).map(Self.scheduleRow)
            cursor = page["next_cursor"]?.stringValue
        } while cursor != nil
        return rows
    }

    func schedule(named name: String, runs: Int) async throws -> (schedule: ScheduleRow, runs: [ScheduleRun]) {
        let answer = try await named(name) { try await call("GET", "/schedules/\($0)?runs=\(runs)") }
        let listed = try (answer["runs"]?.arrayValue ?? []).map { run -> ScheduleRun in
            guard let id = run["run_id"]?.stringValue, let status = run["status"]?.stringValue.flatMap(RunStatus.init(rawValue:)),
                let key = run["key"]?.stringValue, let at = run["submitted_at"]?.stringValue.flatMap(DisplayTime.seconds)
            else { throw CLIFailure("the server's answer has a schedule run this baton cannot read: \(run)") }
            return ScheduleRun(id: id, status: status, key: key, submittedAt: at)
        }
        return (try Self.scheduleRow(answer), listed)
    }

    func setPaused(_ name: String, _ paused: Bool) async throws {
        _ = try await named(name) { try await call("POST", "/schedules/\($0)/\(paused ? "pause" : "resume")", body: .object(JSONObject([]))) }
    }

    func trigger(_ name: String) async throws -> (runID: String, key: String) {
        let answer: JSON
        do {
            answer = try await named(name) { try await call("POST", "/schedules/\($0)/trigger", body: .object(JSONObject([]))) }
        } catch let failure as CLIFailure where failure.exitCode == 2 && !failure.message.hasPrefix("no schedule named") {
            // The stored graph or input no longer reads: the schedule's problem, exit 1 as on the direct path.
            throw CLIFailure(failure.message)
        }
        guard let run = answer["run_id"]?.stringValue, let key = answer["key"]?.stringValue else {
            throw CLIFailure("the server's answer to the trigger has no run id and key")
        }
        return (run, key)
    }

    /// `operation` on the schedule's path segment; the server's 404 in `baton schedule`'s words.
    private func named(_ name: String, _ operation: (String) async throws -> JSON) async throws -> JSON {
        let segment = name.addingPercentEncoding(withAllowedCharacters: Self.segmentCharacters) ?? name
        do { return try await operation(segment) } catch let failure as CLIFailure where failure.message.hasPrefix("no schedule named") {
            throw ScheduleLookup.unknown(name)
        }
    }

    /// What a schedule name may hold unescaped in a path (ASCII only).
    static let segmentCharacters = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")

    /// `ScheduleRow.json` read back: times from ISO 8601, `every` from its duration text.
    static func scheduleRow(_ json: JSON) throws -> ScheduleRow {
        func time(_ member: String) -> Double? { json[member]?.stringValue.flatMap(DisplayTime.seconds) }
        guard let name = json["name"]?.stringValue, let timezone = json["timezone"]?.stringValue,
            let overlap = json["overlap"]?.stringValue.flatMap(OverlapRule.init(rawValue:)),
            let catchUp = json["catch_up"]?.stringValue.flatMap(CatchUpRule.init(rawValue:))
        else { throw CLIFailure("the server's answer has a schedule this baton cannot read") }
        let every = json["every"].flatMap { $0 == .null ? nil : try? DurationText.parse($0).get() }
        let input = json["input"].flatMap { $0 == .null ? nil : $0 }
        var row = ScheduleRow(
            name: name, graph: .null, input: input, cron: json["cron"]?.stringValue, everySeconds: every, timezone: timezone,
            overlap: overlap, catchUp: catchUp)
        row.paused = json["paused"] == true
        row.createdAt = time("created_at") ?? 0
        row.lastFiredAt = time("last_fired_at")
        row.nextFireAt = time("next_fire_at")
        row.queuedAt = time("queued_at")
        row.lastRunID = json["last_run_id"]?.stringValue
        row.lastRunStatus = json["last_run_status"]?.stringValue.flatMap(RunStatus.init(rawValue:))
        row.skipped = json["skipped"]?.intValue ?? 0
        row.lastSkipReason = json["last_skip_reason"]?.stringValue
        row.lastError = json["last_error"]?.stringValue
        row.partition = json["partition"]?.intValue ?? 0
        return row
    }
}
