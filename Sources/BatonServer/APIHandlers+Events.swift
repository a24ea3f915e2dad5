import Baton
import BatonDashboard
import BatonStore
import Foundation
import Hummingbird

/// A run's event log and timeline (read scope).
extension APIHandlers {
    /// `GET /api/v1/runs/{id}/events?after=N&limit=M&wait=`: the events after id N, oldest first, at most M
    /// (1000 by default). With `wait`, an empty page waits until an event comes, the run ends or the
    /// wait runs out: a follower asks again with `after` = `last_id` until `run_status` has ended.
    func listEvents(_ request: Request, _ rawID: String) async -> Response {
        await answer(request, scope: .read) { [self] _ in
            let id = try Self.runID(rawID)
            let query = request.uri.queryParameters
            let after = try Self.integer(query.get("after"), name: "after", range: 0...Self.largestEventID, default: 0)
            let limit = try Self.integer(query.get("limit"), name: "limit", range: 1...1000, default: 1000)
            let wait = try APIWait.parse(query.get("wait"))
            let page = try await APIWait.poll(wait: wait, every: .milliseconds(200)) { last in
                let page = try await pool.run { store -> (RunStatus, [EventRow])? in
                    guard let status = try store.runStatus(id) else { return nil }
                    return (status, try store.events(ofRun: id, after: after, limit: limit))
                }
                guard let (status, events) = page else { throw APIError.notFound("no run with id \(id)") }
                return !events.isEmpty || status.isTerminal || last ? (status, events) : nil
            }
            guard let (status, events) = page else { throw APIError.unavailable("no answer") }
            return (
                200,
                [
                    "events": .array(events.map(DashboardJSON.event)), "last_id": .int(Int64(events.last?.id ?? after)),
                    "run_status": .string(status.rawValue),
                ]
            )
        }
    }

    /// `GET /api/v1/runs/{id}/timeline`: per node its attempts and waits, as the dashboard draws them.
    func timeline(_ request: Request, _ rawID: String) async -> Response {
        await answer(request, scope: .read) { [self] _ in
            let id = try Self.runID(rawID)
            guard let found = try await pool.run({ try $0.timeline(ofRun: id) }) else { throw APIError.notFound("no run with id \(id)") }
            return (200, found.timeline.document(run: id, status: found.run))
        }
    }

    /// The largest `after` (2^53 - 1, as the document says): any event id a JSON number carries exactly.
    static let largestEventID = (1 << 53) - 1

    /// A whole number query parameter within `range`, `default` when absent; 400 otherwise (as the dashboard's).
    static func integer(_ text: String?, name: String, range: ClosedRange<Int>, default value: Int) throws -> Int {
        if let text, text.isEmpty { throw APIError.badRequest("\(name): '' is not a whole number from \(range.lowerBound) to \(range.upperBound)") }
        do { return try RunsQuery.number(text.map { [name: $0] } ?? [:], name, default: value, range: range) } catch {
            throw APIError.badRequest(error.message)
        }
    }

    /// The query's parameters by name (the first of a repeated one).
    static func parameters(_ request: Request) -> [String: String] {
        var parameters: [String: String] = [:]
        for (name, value) in request.uri.queryParameters where parameters[String(name)] == nil {
            parameters[String(name)] = String(value)
        }
        return parameters
    }
}
