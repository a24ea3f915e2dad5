import Baton
import BatonDashboard
import BatonStore
import Foundation
import Hummingbird

/// `baton cancel|retry --where` over HTTP: the same filter, batches and requests as the CLI's direct path.
extension APIHandlers {
    /// `POST /api/v1/bulk/{cancel|retry}` with `{"where": "status=failed,...", "dry_run"?, "reason"? (cancel)}`.
    func bulkRequest(_ request: Request, _ action: BulkAction, source: String?) async -> Response {
        await answer(request, scope: .operate) { [self] token in
            let wait = try APIWait.parse(request.uri.queryParameters.get("wait"))
            let body = try await APIBody.object(
                request, limit: 65_536, allowed: action == .cancel ? ["where", "dry_run", "reason"] : ["where", "dry_run"])
            guard let text = body["where"]?.stringValue else {
                throw APIError.invalid(
                    "the body needs `where`, the filter (such as \"status=failed,since=1d\")", details: [["message": "required", "field": "/where"]])
            }
            let filter: RunFilter
            switch RunFilter.parse([text]) {
            case .success(let parsed): filter = parsed
            case .failure(let problem): throw APIError.invalid(problem.description)
            }
            if let problem = filter.problem(for: action) { throw APIError.invalid(problem.description) }
            var dryRun = false
            if let given = body["dry_run"] {
                guard case .bool(let flag) = given else { throw APIError.invalid("`dry_run` must be true or false") }
                dryRun = flag
            }
            var reason = "cancelled: by request (baton server, token \(token.name))"
            if let given = body["reason"] {
                guard let text = given.stringValue, !text.isEmpty, text.count <= 1000 else {
                    throw APIError.invalid("`reason` must be a string of 1 to 1000 characters")
                }
                reason = "cancelled: \(text)"
            }
            var answer: [(key: String, value: JSON)] = [
                ("action", .string(action.rawValue)), ("where", .string(filter.text)), ("dry_run", .bool(dryRun)),
            ]
            if dryRun {
                let preview = try await pool.run { try $0.bulkPreview(action, filter) }
                answer += [("matched", .int(Int64(preview.count))), ("runs", .array(preview.runs.map(DashboardJSON.run)))]
                return (200, .object(JSONObject(answer)))
            }
            let audit = AuditEntry(tokenName: token.name, action: "runs.\(action.rawValue)", target: filter.text, source: source)
            let cancelReason = reason
            let made = try await pool.run(write: true) { try $0.bulkRequest(action, filter, reason: cancelReason, audit: audit) }
            let open =
                try await APIWait.poll(wait: wait) { last in
                    let open = try await pool.run { try $0.unhandledRequests(made.requests) }
                    return open == 0 || last ? open : nil
                } ?? made.requests.count
            answer += [
                ("matched", .int(Int64(made.requests.count))), ("applied", .int(Int64(made.requests.count - open))),
                ("batches", .int(Int64(made.batches))),
            ]
            return (202, .object(JSONObject(answer)))
        }
    }
}
