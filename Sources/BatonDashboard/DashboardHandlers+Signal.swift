import Baton
import BatonStore
import Foundation
import Hummingbird

extension DashboardHandlers {
    /// POST a signal to a signal node (`/api/runs/ID/signal?node=KEY`, the value as the JSON body; an
    /// empty body is `null`): the signed-in token's `operate` scope first, as for cancel and retry, then `Store.signal`,
    /// whose refusals answer 409 (404 for an unknown run or node) and store nothing.
    func signal(_ id: String, _ request: Request, source: String?) async -> Response {
        if let refused = adminRefusal(request) { return refused }
        return await api(status: 202) {
            let id = try RunID(parsing: id).value
            guard let key = QueryParameters.parse(request.uri.query)["node"], !key.isEmpty else {
                throw DashboardError.badRequest("node: give the signal node's key (?node=NODE)")
            }
            let limit = GraphLimits().maxOutputBytes
            let bytes: [UInt8]
            do { bytes = Array(buffer: try await request.body.collect(upTo: limit + 1)) } catch {
                throw DashboardError(status: 413, "the signal's value is more than the output limit of \(limit) bytes")
            }
            let value: JSON
            if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
                value = .null
            } else {
                do { value = try JSONParser.parse(bytes, maxDepth: GraphLimits().maxDepth) } catch {
                    throw DashboardError.badRequest("the signal's value is not JSON: \(error)")
                }
            }
            let audit = audit("run.signal", "\(id)/\(key)", source: source)
            return try await pool.run(write: true) { store -> JSON in
                let requestID: Int
                do { requestID = try store.signal(run: id, node: key, value: value, maxBytes: limit) } catch let refusal as SignalRefusal {
                    throw DashboardError(status: refusal.missing ? 404 : 409, refusal.description)
                }
                try store.recordAudit(audit, status: 202)
                return ["run_id": .string(id), "node": .string(key), "request_id": .int(Int64(requestID))]
            }
        }
    }
}
