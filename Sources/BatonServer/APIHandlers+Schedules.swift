import Baton
import BatonDemo
import BatonStore
import BatonYAML
import Foundation
import Hummingbird

/// Schedules through the API: added and deleted (admin), listed and read (read), paused, resumed and
/// fired now (operate), checked and refused as `baton schedule` does (`ScheduleDraft`, `Store.triggerSchedule`).
extension APIHandlers {
    static let scheduleMembers: Set<String> = [
        "name", "graph", "input", "cron", "timezone", "every", "overlap", "catch_up", "allow_unknown_procedures", "type_check",
    ]

    /// `GET /api/v1/schedules?limit&cursor`: the schedules by name, as `baton schedule list --json`.
    func listSchedules(_ request: Request) async -> Response {
        await answer(request, scope: .read) { [self] _ in
            let query = request.uri.queryParameters
            let limit = try Self.integer(query.get("limit"), name: "limit", range: 1...1000, default: 100)
            let cursor = query.get("cursor")
            let all = try await pool.run { try $0.schedules() }
            let page = try PageCursor.page(all, name: \.name, after: cursor, limit: limit)
            return (200, ["schedules": .array(page.items.map(\.json)), "next_cursor": page.next.map(JSON.string) ?? .null])
        }
    }

    /// `GET /api/v1/schedules/{name}?runs=N`: the schedule and its newest runs, as `baton schedule show --json`.
    func getSchedule(_ request: Request, _ name: String) async -> Response {
        await answer(request, scope: .read) { [self] _ in
            let count = try Self.integer(request.uri.queryParameters.get("runs"), name: "runs", range: 0...1000, default: 20)
            let found = try await pool.run { store -> (ScheduleRow, [ScheduleRun])? in
                guard let schedule = try store.schedule(named: name) else { return nil }
                return (schedule, count == 0 ? [] : try store.scheduleRuns(name, limit: count))
            }
            guard let (schedule, runs) = found else { throw Self.unknownSchedule(name) }
            return (200, Self.scheduleJSON(schedule, runs: runs))
        }
    }

    /// `POST /api/v1/schedules`: a `ScheduleCreate` body, its settings checked as `baton schedule add`
    /// checks its options and its graph as `submit` checks one; 201 with the schedule as stored.
    func createSchedule(_ request: Request, source: String?) async -> Response {
        await answer(request, scope: .admin) { [self] token in
            try APIBody.requireJSON(request)
            let body = try await APIBody.object(request, limit: limits.maxGraphBytes + limits.maxInputBytes + 65_536, allowed: Self.scheduleMembers)
            try NULCheck.refuse(body)
            guard let name = body["name"]?.stringValue else {
                throw APIError.invalid("the body needs `name`, a string", details: [["message": "required", "field": "/name"]])
            }
            let draft = ScheduleDraft(
                name: name, cron: try Self.text(body, "cron"), timezone: try Self.text(body, "timezone"), every: try Self.text(body, "every"),
                overlap: try Self.text(body, "overlap") ?? "skip", catchUp: try Self.text(body, "catch_up") ?? "last")
            let checked: ScheduleDraft.Checked
            switch draft.check(.members) {
            case let .success(value): checked = value
            case let .failure(problem): throw APIError.invalid(problem.description)
            }
            try Self.checkLengths(draft)
            let (graph, document, input) = try await checkedGraph(body)
            let row = checked.row(document: document, graphName: graph.name, input: input)
            let audit = AuditEntry(tokenName: token.name, action: "schedule.create", target: name, source: source)
            let (stored, now): (ScheduleRow, Double)
            do {
                (stored, now) = try await pool.run { store in (try store.addSchedule(row, audit: audit), try store.databaseNow()) }
            } catch let exists as ScheduleExists {
                throw APIError.conflict(exists.description)
            }
            var json = stored.json.objectValue ?? JSONObject([])
            let next = (try? stored.timing().get()).flatMap { $0.next(after: max(stored.createdAt, now)) }
            json["next_fire_at"] = next.map { .string(CivilDate.iso8601($0)) } ?? .null
            return (201, .object(json))
        }
    }

    /// `POST /api/v1/schedules/{name}/pause` and `/resume`: the schedule after (200).
    func pauseSchedule(_ request: Request, _ name: String, paused: Bool, source: String?) async -> Response {
        await answer(request, scope: .operate) { [self] token in
            let audit = AuditEntry(tokenName: token.name, action: paused ? "schedule.pause" : "schedule.resume", target: name, source: source)
            guard let schedule = try await pool.run({ try $0.setSchedulePaused(name, paused, audit: audit) }) else {
                throw Self.unknownSchedule(name)
            }
            return (200, schedule.json)
        }
    }

    /// `POST /api/v1/schedules/{name}/trigger`: fired now, as `baton schedule trigger` fires it (201).
    func triggerSchedule(_ request: Request, _ name: String, source: String?) async -> Response {
        await answer(request, scope: .operate) { [self] token in
            let audit = AuditEntry(tokenName: token.name, action: "schedule.trigger", target: name, source: source)
            let triggered: ScheduleTriggered?
            do { triggered = try await pool.run { [limits] in try $0.triggerSchedule(name, limits: limits, audit: audit) } } catch let problem
                as ScheduleInputError
            {
                throw APIError.invalid(problem.description)
            }
            guard let triggered else { throw Self.unknownSchedule(name) }
            return (201, ["run_id": .string(triggered.runID), "key": .string(triggered.key)])
        }
    }

    /// `DELETE /api/v1/schedules/{name}`: 204; its runs stay.
    func deleteSchedule(_ request: Request, _ name: String, source: String?) async -> Response {
        let response = await answer(request, scope: .admin) { [self] token in
            let audit = AuditEntry(tokenName: token.name, action: "schedule.delete", target: name, source: source)
            guard try await pool.run({ try $0.deleteSchedule(name, audit: audit) }) else { throw Self.unknownSchedule(name) }
            return (204, .null)
        }
        guard response.status == .noContent else { return response }
        return Response(status: .noContent, headers: [.cacheControl: "no-store"])
    }

    /// The 404 of a schedule name, in `baton schedule`'s words.
    static func unknownSchedule(_ name: String) -> APIError {
        APIError.notFound("no schedule named '\(name.prefix(200))' (see GET /schedules)")
    }

    static func scheduleJSON(_ schedule: ScheduleRow, runs: [ScheduleRun]) -> JSON {
        var json = schedule.json.objectValue ?? JSONObject([])
        json["runs"] = .array(
            runs.map {
                [
                    "run_id": .string($0.id), "status": .string($0.status.rawValue), "key": .string($0.key),
                    "submitted_at": .string(CivilDate.iso8601($0.submittedAt)),
                ]
            })
        return .object(json)
    }

    /// What the document's `ScheduleCreate` asks beyond what `baton schedule add` checks: at most 200
    /// characters of cron, 64 of zone, and a period written as `30s`, `5m`, `1h` or `1500ms`.
    static func checkLengths(_ draft: ScheduleDraft) throws {
        if let cron = draft.cron, cron.unicodeScalars.count > 200 { throw APIError.invalid("cron: longer than 200 characters") }
        if let zone = draft.timezone, zone.unicodeScalars.count > 64 { throw APIError.invalid("timezone: longer than 64 characters") }
        let period = /([1-9][0-9]{0,5}(\.[0-9]{1,3})?s|[1-9][0-9]{0,4}(\.[0-9]{1,3})?m|[1-9][0-9]{0,2}(\.[0-9]{1,3})?h|[1-9][0-9]{3,5}ms)/
        if let every = draft.every, every.wholeMatch(of: period) == nil {
            throw APIError.invalid("every: '\(every.prefix(100))' must be a period such as 30s, 5m, 1.5h or 1500ms")
        }
    }

    /// Body member `member` as a string, nil when absent; 422 for another type.
    static func text(_ body: JSONObject, _ member: String) throws -> String? {
        guard let value = body[member] else { return nil }
        guard let text = value.stringValue else {
            throw APIError.invalid(
                "`\(member)` must be a string, not \(value.kindName)", details: [["message": "type", "field": .string("/" + member)]])
        }
        return text
    }

    /// The body's `graph` (and `input`), checked as `submit` checks them: the graph, its document as
    /// written (a JSON or YAML text read into JSON) and the input.
    func checkedGraph(_ body: JSONObject) async throws -> (graph: Graph, document: JSON, input: JSON?) {
        var members: [(key: String, value: JSON)] = []
        for member in ["graph", "input", "allow_unknown_procedures", "type_check"] {
            if let value = body[member] { members.append((member, value)) }
        }
        let run = try RunCreateBody.parse(Array(JSON.object(JSONObject(members)).serialized().utf8))
        let workers = try await pool.run { try $0.liveWorkers() }
        let graph = try run.graph(
            limits: limits, knownProcedures: run.allowUnknownProcedures ? nil : Store.knownProcedures(of: workers, beside: .demo),
            schemas: run.typeCheck ? Store.inputSchemas(of: workers, over: .demo) : nil)
        var document = run.graph
        if let text = run.graph.stringValue {
            // `graph` validated it, so it reads.
            document = try YAMLDocument.parse(Array(text.utf8), maxDepth: limits.maxDepth, maxBytes: limits.maxGraphBytes).json
        }
        return (graph, document, run.input)
    }
}
