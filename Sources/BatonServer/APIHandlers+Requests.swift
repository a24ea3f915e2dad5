import Baton
import BatonDashboard
import BatonStore
import Foundation
import Hummingbird

/// Cancel, retry and signal: stored as requests a coordinator applies (as `baton cancel`, `retry` and
/// `signal` store them), answered 202; `?wait=` waits for a coordinator to apply one.
extension APIHandlers {
    /// `POST /api/v1/runs/{id}/cancel` with an optional `{"reason": "..."}`.
    func cancelRun(_ request: Request, _ rawID: String, source: String?) async -> Response {
        await answer(request, scope: .operate) { [self] token in
            let id = try Self.runID(rawID)
            let wait = try APIWait.parse(request.uri.queryParameters.get("wait"))
            let body = try await APIBody.object(request, limit: 65_536, allowed: ["reason"])
            var reason = "cancelled: by request (baton server, token \(token.name))"
            if let given = body["reason"] {
                guard let text = given.stringValue, !text.isEmpty, text.count <= 1000 else {
                    throw APIError.invalid("`reason` must be a string of 1 to 1000 characters")
                }
                reason = "cancelled: \(text)"
            }
            let audit = AuditEntry(tokenName: token.name, action: "run.cancel", target: id, source: source)
            return (202, try await store(.cancel, id, reason: reason, audit: audit, wait: wait))
        }
    }

    /// `POST /api/v1/runs/{id}/retry` with an optional `{"from": "NODE"}`.
    func retryRun(_ request: Request, _ rawID: String, source: String?) async -> Response {
        await answer(request, scope: .operate) { [self] token in
            let id = try Self.runID(rawID)
            let wait = try APIWait.parse(request.uri.queryParameters.get("wait"))
            let body = try await APIBody.object(request, limit: 65_536, allowed: ["from"])
            var from: String?
            if let given = body["from"] {
                guard let text = given.stringValue, !text.isEmpty else { throw APIError.invalid("`from` must be a node key") }
                from = text
            }
            let audit = AuditEntry(tokenName: token.name, action: "run.retry", target: id, source: source)
            return (202, try await store(.retry, id, node: from, audit: audit, wait: wait))
        }
    }

    /// `POST /api/v1/runs/{id}/signals` with `{"node": "KEY", "value": ANY}`.
    func signalRun(_ request: Request, _ rawID: String, source: String?) async -> Response {
        await answer(request, scope: .operate) { [self] token in
            let id = try Self.runID(rawID)
            let wait = try APIWait.parse(request.uri.queryParameters.get("wait"))
            let body = try await APIBody.object(request, limit: limits.maxOutputBytes + 65_536, allowed: ["node", "value"])
            guard let node = body["node"]?.stringValue, !node.isEmpty else {
                throw APIError.invalid("the body needs `node`, the signal node's key", details: [["message": "required", "field": "/node"]])
            }
            let value = body["value"] ?? .null
            let maxBytes = limits.maxOutputBytes
            let audit = AuditEntry(tokenName: token.name, action: "run.signal", target: "\(id)/\(node)", source: source)
            let requestID = try await pool.run(write: true) { store -> Int in
                do {
                    let requestID = try store.signal(run: id, node: node, value: value, maxBytes: maxBytes)
                    try store.recordAudit(audit, status: 202)
                    return requestID
                } catch let refusal as SignalRefusal {
                    if refusal.missing { throw APIError.notFound(refusal.description) }
                    if refusal.description.contains("more than the output limit") { throw APIError.payloadTooLarge(refusal.description) }
                    throw APIError.conflict(refusal.description)
                }
            }
            let applied = try await awaitHandled(requestID, wait: wait)
            let status = try await pool.run { try $0.nodeStatus(run: id, key: node) }
            return (
                202,
                [
                    "run_id": .string(id), "node": .string(node), "request_id": .int(Int64(requestID)), "applied": .bool(applied),
                    "status": .string((status ?? .pending).rawValue),
                ]
            )
        }
    }

    /// Stores a cancel or retry of run `id` (a retry from `node` only if it can succeed, as `baton retry
    /// --from` checks) with its audit entry, refused as the CLI refuses it; answers once applied or `wait` ran out.
    private func store(
        _ action: AdminAction, _ id: String, node: String? = nil, reason: String? = nil, audit: AuditEntry, wait: Double
    ) async throws -> JSON {
        let (requestID, status) = try await pool.run(write: true) { store -> (Int, RunStatus) in
            guard let status = try store.runStatus(id) else { throw APIError.notFound("no run with id \(id)") }
            if let refusal = action.refusal(runID: id, status: status) { throw APIError.conflict(refusal.message) }
            if let node {
                guard let state = try store.loadRun(id) else { throw APIError.notFound("no run with id \(id)") }
                guard state.graph.nodes[node] != nil else { throw APIError.invalid("run \(id) has no node '\(node)'") }
                do { _ = try state.nodesToRetry(from: node) } catch {
                    throw APIError.invalid("cannot retry run \(id) from '\(node)': \(error)")
                }
            }
            let requestID =
                switch action {
                case .cancel: try store.request(.cancel, runID: id, reason: reason)
                case .retry: try store.request(.retry, runID: id, node: node)
                }
            try store.recordAudit(audit, status: 202)
            return (requestID, status)
        }
        return try await accepted(id, requestID: requestID, status: status, wait: wait)
    }

    /// The answer to a stored cancel or retry: applied within `wait` or not, and the run's status then.
    private func accepted(_ id: String, requestID: Int, status: RunStatus, wait: Double) async throws -> JSON {
        let applied = try await awaitHandled(requestID, wait: wait)
        let now = applied ? (try await pool.run { try $0.runStatus(id) } ?? status) : status
        return ["run_id": .string(id), "request_id": .int(Int64(requestID)), "status": .string(now.rawValue), "applied": .bool(applied)]
    }

    /// Whether a coordinator applied request `id` within `wait` seconds (polled in short pool jobs).
    func awaitHandled(_ id: Int, wait: Double) async throws -> Bool {
        try await APIWait.poll(wait: wait) { _ in try await pool.run { try $0.requestHandled(id) } ? true : nil } ?? false
    }
}
