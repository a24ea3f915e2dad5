import Baton
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
            let deadline = ContinuousClock.now + .milliseconds(Int(wait * 1000))
            while true {
                let page = try await pool.run { store -> (RunStatus, [EventRow])? in
                    guard let status = try store.runStatus(id) else { return nil }
                    return (status, try store.events(ofRun: id, after: after, limit: limit))
                }
                guard let (status, events) = page else { throw APIError.notFound("no run with id \(id)") }
                if !events.isEmpty || status.isTerminal || ContinuousClock.now >= deadline {
                    let rows = events.map { e -> JSON in
                        [
                            "id": .int(Int64(e.id)), "node": e.node.map(JSON.string) ?? .null, "kind": .string(e.kind), "at": .string(e.at),
                            "detail": e.detail,
                        ]
                    }
                    return (
                        200, ["events": .array(rows), "last_id": .int(Int64(events.last?.id ?? after)), "run_status": .string(status.rawValue)]
                    )
                }
                try await Task.sleep(for: .milliseconds(200))
            }
        }
    }

    /// `GET /api/v1/runs/{id}/timeline`: per node its attempts and waits, as the dashboard draws them.
    func timeline(_ request: Request, _ rawID: String) async -> Response {
        await answer(request, scope: .read) { [self] _ in
            let id = try Self.runID(rawID)
            guard let found = try await pool.run({ try $0.timeline(ofRun: id) }) else { throw APIError.notFound("no run with id \(id)") }
            return (200, found.timeline.json)
        }
    }

    /// The largest `after` (2^53 - 1, as the document says): any event id a JSON number carries exactly.
    static let largestEventID = (1 << 53) - 1

    /// A whole number query parameter within `range`, `default` when absent; 400 otherwise.
    static func integer(_ text: String?, name: String, range: ClosedRange<Int>, default value: Int) throws -> Int {
        guard let text else { return value }
        guard let number = Int(text), range.contains(number) else {
            throw APIError.badRequest("\(name): '\(text)' is not a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }
}
