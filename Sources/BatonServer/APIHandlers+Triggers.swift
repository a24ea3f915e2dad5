import Baton
import BatonStore
import Foundation
import Hummingbird

/// Triggers (admin) and the events that start them: `POST /events` (submit) starts every trigger of
/// the event's type whose filters match, once per event id; `GET /events` (read) lists what came in.
extension APIHandlers {
    static let triggerMembers: Set<String> = ["name", "graph", "event_type", "filters", "allow_unknown_procedures", "type_check"]

    /// `GET /api/v1/triggers?event_type&limit&cursor`: the triggers by name, without their graphs.
    func listTriggers(_ request: Request) async -> Response {
        await answer(request, scope: .admin) { [self] _ in
            let query = request.uri.queryParameters
            let type = try Self.eventTypeParameter(query.get("event_type"), name: "event_type")
            let limit = try Self.integer(query.get("limit"), name: "limit", range: 1...1000, default: 100)
            let cursor = query.get("cursor")
            let all = try await pool.run { try $0.triggers(eventType: type) }
            let page = try PageCursor.page(all, name: \.name, after: cursor, limit: limit)
            return (200, ["triggers": .array(page.items.map { $0.json(graph: false) }), "next_cursor": page.next.map(JSON.string) ?? .null])
        }
    }

    /// `GET /api/v1/triggers/{name}`: one trigger with its graph.
    func getTrigger(_ request: Request, _ name: String) async -> Response {
        await answer(request, scope: .admin) { [self] _ in
            guard let trigger = try await pool.run({ try $0.trigger(named: name) }) else { throw Self.unknownTrigger(name) }
            return (200, trigger.json(graph: true))
        }
    }

    /// `POST /api/v1/triggers`: a `TriggerCreate` body, checked as `baton trigger add` checks its
    /// arguments (the graph as `submit` checks one); 201 with the trigger as stored.
    func createTrigger(_ request: Request, source: String?) async -> Response {
        await answer(request, scope: .admin) { [self] token in
            try APIBody.requireJSON(request)
            let body = try await APIBody.object(request, limit: limits.maxGraphBytes + 65_536, allowed: Self.triggerMembers)
            try NULCheck.refuse(body)
            guard let name = body["name"]?.stringValue else {
                throw APIError.invalid("the body needs `name`, a string", details: [["message": "required", "field": "/name"]])
            }
            if let problem = TriggerName.problem(name) { throw APIError.invalid(problem, details: [["message": "pattern", "field": "/name"]]) }
            guard let type = body["event_type"]?.stringValue else {
                throw APIError.invalid("the body needs `event_type`, a string", details: [["message": "required", "field": "/event_type"]])
            }
            if let problem = EventType.problem(type) { throw APIError.invalid(problem, details: [["message": "pattern", "field": "/event_type"]]) }
            var filters: [TriggerFilter] = []
            if let given = body["filters"] {
                guard let list = given.arrayValue, list.count <= 32 else {
                    throw APIError.invalid(
                        "`filters` must be an array of at most 32 {\"pointer\", \"value\"}", details: [["message": "type", "field": "/filters"]])
                }
                for (i, item) in list.enumerated() {
                    switch TriggerFilter.parse(item) {
                    case let .success(filter): filters.append(filter)
                    case let .failure(problem):
                        throw APIError.invalid(
                            "filters[\(i)]: \(problem.description)", details: [["message": "filter", "field": .string("/filters/\(i)")]])
                    }
                }
            }
            let (graph, document, _) = try await checkedGraph(body)
            var stored = document
            if case var .object(fields) = document, fields["name"] == nil {
                fields["name"] = .string(graph.name)
                stored = .object(fields)
            }
            let row = TriggerRow(name: name, eventType: type, graph: stored, filters: filters)
            let audit = AuditEntry(tokenName: token.name, action: "trigger.create", target: name, source: source)
            do {
                let added = try await pool.run { try $0.addTrigger(row, audit: audit) }
                return (201, added.json(graph: true))
            } catch let exists as TriggerExists {
                throw APIError.conflict(exists.description)
            }
        }
    }

    /// `DELETE /api/v1/triggers/{name}`: 204; the runs it started stay.
    func deleteTrigger(_ request: Request, _ name: String, source: String?) async -> Response {
        let response = await answer(request, scope: .admin) { [self] token in
            let audit = AuditEntry(tokenName: token.name, action: "trigger.delete", target: name, source: source)
            guard try await pool.run({ try $0.deleteTrigger(name, audit: audit) }) else { throw Self.unknownTrigger(name) }
            return (204, .null)
        }
        guard response.status == .noContent else { return response }
        return Response(status: .noContent, headers: [.cacheControl: "no-store"])
    }

    /// `POST /api/v1/events` with `{"type", "id", "data"}`: 202 with the runs it started; 200 with
    /// `duplicate: true` and the same runs for an id received before with the same type and data; 409
    /// for the same id with another type or data.
    func postEvent(_ request: Request, source: String?) async -> Response {
        await answer(request, scope: .submit) { [self] token in
            try APIBody.requireJSON(request)
            let body = try await APIBody.object(request, limit: limits.maxInputBytes + 65_536, allowed: ["type", "id", "data"])
            try NULCheck.refuse(body)
            guard let type = body["type"]?.stringValue else {
                throw APIError.invalid("the body needs `type`, the event's type (a string)", details: [["message": "required", "field": "/type"]])
            }
            if let problem = EventType.problem(type) { throw APIError.invalid(problem, details: [["message": "pattern", "field": "/type"]]) }
            guard let id = body["id"]?.stringValue, (1...128).contains(id.unicodeScalars.count) else {
                throw APIError.invalid(
                    "the body needs `id`, the event's id: a string of 1 to 128 characters", details: [["message": "required", "field": "/id"]])
            }
            let data = body["data"] ?? .object(JSONObject([]))
            guard data.objectValue != nil else {
                throw APIError.invalid(
                    "`data` must be an object (the runs' input), not \(data.kindName)", details: [["message": "type", "field": "/data"]])
            }
            let audit = AuditEntry(tokenName: token.name, action: "event.receive", target: id, source: source)
            do {
                let receipt = try await pool.run { [limits] in try $0.receiveEvent(id: id, type: type, data: data, limits: limits, audit: audit) }
                return (receipt.duplicate ? 200 : 202, receipt.json)
            } catch let conflict as EventIDConflict {
                throw APIError.conflict(conflict.description)
            }
        }
    }

    /// `GET /api/v1/events?type&limit&cursor`: received events, newest first, with their runs.
    func listTriggerEvents(_ request: Request) async -> Response {
        await answer(request, scope: .read) { [self] _ in
            let query = request.uri.queryParameters
            let type = try Self.eventTypeParameter(query.get("type"), name: "type")
            let limit = try Self.integer(query.get("limit"), name: "limit", range: 1...1000, default: 100)
            let before = try PageCursor.name(query.get("cursor"))
            let events = try await pool.run { try $0.triggerEvents(type: type, before: before, limit: limit) }
            let next: JSON = events.count == limit ? events.last.map { .string(PageCursor.text(name: $0.id)) } ?? .null : .null
            return (200, ["events": .array(events.map(\.json)), "next_cursor": next])
        }
    }

    /// The 404 of a trigger name.
    static func unknownTrigger(_ name: String) -> APIError {
        APIError.notFound("no trigger named '\(name.prefix(200))' (see GET /triggers)")
    }

    /// An event type query parameter, or 400.
    static func eventTypeParameter(_ text: String?, name: String) throws -> String? {
        guard let text else { return nil }
        if let problem = EventType.problem(text) { throw APIError.badRequest("\(name): \(problem)") }
        return text
    }
}
