import Baton
import BatonDashboard
import BatonStore
import Foundation
import Hummingbird

/// A run's nodes, a page at a time, and one node with its events and logs (read scope).
extension APIHandlers {
    /// `GET /api/v1/runs/{id}/nodes?status=S&limit=N&cursor=C`: nodes in stored order; `next_cursor` gives
    /// the next page (null after the last).
    func listNodes(_ request: Request, _ rawID: String) async -> Response {
        await answer(request, scope: .read) { [self] _ in
            let id = try Self.runID(rawID)
            let query = request.uri.queryParameters
            let limit = try Self.integer(query.get("limit"), name: "limit", range: 1...1000, default: 1000)
            let status: String? = query.get("status").map { String($0) }
            if let status, NodeStatus(rawValue: status) == nil {
                throw APIError.badRequest("status: '\(status)' is not a node status (\(NodeStatus.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            let after = Int(try PageCursor.number(query.get("cursor"), marker: "n", range: 0...Int64(Int32.max)) ?? -1)
            let page = try await pool.run { store -> (rows: [NodeRow], last: Int?)? in
                guard try store.runStatus(id) != nil else { return nil }
                return try store.nodePage(ofRun: id, status: status, afterPosition: after, limit: limit)
            }
            guard let page else { throw APIError.notFound("no run with id \(id)") }
            let next: JSON = page.rows.count == limit ? page.last.map { .string(PageCursor.text("n", Int64($0))) } ?? .null : .null
            return (200, ["nodes": .array(page.rows.map(DashboardJSON.node)), "next_cursor": next])
        }
    }

    /// `GET /api/v1/runs/{id}/nodes/{key}` (a child's key with its `/` as `%2F`): the node, its latest
    /// progress, its log lines and its events.
    func getNode(_ request: Request, _ rawID: String, _ rawKey: String) async -> Response {
        await answer(request, scope: .read) { [self] _ in
            let id = try Self.runID(rawID)
            let key = rawKey.removingPercentEncoding ?? rawKey
            let detail = try await pool.run { store -> JSON in
                guard try store.runStatus(id) != nil else { throw APIError.notFound("no run with id \(id)") }
                guard let node = try store.node(ofRun: id, key: key) else { throw APIError.notFound("run \(id) has no node '\(key.prefix(200))'") }
                return DashboardJSON.nodeDetail(node, events: try store.events(ofRun: id, node: key, limit: 1000))
            }
            return (200, detail)
        }
    }
}
