import Baton
import BatonStore
import Foundation
import Hummingbird

/// Webhooks through the API (admin scope): added (the secret in the answer, once, if the server made
/// it), listed, read, deleted, and their deliveries with every attempt. Writes are audited in the
/// same statement.
extension APIHandlers {
    /// `GET /api/v1/webhooks?limit=N&cursor=C`: by id, never a secret.
    func listWebhooks(_ request: Request) async -> Response {
        await answer(request, scope: .admin) { [self] _ in
            let query = request.uri.queryParameters
            let limit = try Self.integer(query.get("limit"), name: "limit", range: 1...1000, default: 100)
            let after = try PageCursor.number(query.get("cursor"), marker: "w") ?? 0
            let all = try await pool.run { try $0.webhooks() }
            let page = Array(all.filter { $0.id > after }.prefix(limit))
            let more = all.contains { $0.id > (page.last?.id ?? after) } && page.count == limit
            let next: JSON = more ? page.last.map { .string(PageCursor.text("w", $0.id)) } ?? .null : .null
            return (200, ["webhooks": .array(page.map(\.json)), "next_cursor": next])
        }
    }

    /// `POST /api/v1/webhooks` with `{"url", "events": [...], "name_glob"?, "secret"?, "format"?}`: 201
    /// with the webhook and its `secret` (the one given, or the one made here; never shown again).
    func createWebhook(_ request: Request, source: String?) async -> Response {
        await answer(request, scope: .admin) { [self] token in
            let body = try await APIBody.object(request, limit: 65_536, allowed: ["url", "events", "name_glob", "secret", "format"])
            guard let url = body["url"]?.stringValue else { throw APIError.invalid("the body needs `url`, a string") }
            guard let list = body["events"]?.arrayValue, !list.isEmpty, list.allSatisfy({ $0.stringValue != nil }) else {
                throw APIError.invalid("`events` must be a non-empty array of event kinds")
            }
            let kinds = list.compactMap(\.stringValue)
            if let unknown = kinds.first(where: { WebhookEventType(rawValue: $0) == nil }) {
                let known = WebhookEventType.allCases.map(\.rawValue).joined(separator: ", ")
                throw APIError.invalid("unknown event kind '\(unknown.prefix(100))' (known: \(known))")
            }
            if Set(kinds).count != kinds.count { throw APIError.invalid("`events` names a kind twice") }
            func text(_ name: String) throws -> String? {
                guard let value = body[name] else { return nil }  // absent; null is not a string (the document says so)
                guard let string = value.stringValue else { throw APIError.invalid("`\(name)` must be a string, not \(value.kindName)") }
                return string
            }
            let draft: WebhookDraft
            switch WebhookDraft.make(
                url: url, events: kinds.joined(separator: ","), nameGlob: try text("name_glob"), secret: try text("secret"),
                format: try text("format"))
            {
            case let .success(d): draft = d
            case let .failure(problem): throw APIError.invalid(problem.description)
            }
            let audit = AuditEntry(tokenName: token.name, action: "webhook.create", source: source)
            let row = try await pool.run { try $0.addWebhook(draft, audit: audit) }
            var json = row.json.objectValue ?? JSONObject([])
            json["secret"] = .string(draft.secret)
            return (201, .object(json))
        }
    }

    /// `GET /api/v1/webhooks/{id}`: without its secret; 404 if there is none.
    func getWebhook(_ request: Request, _ id: String) async -> Response {
        await answer(request, scope: .admin) { [self] _ in
            let number = try Self.webhookID(id)
            guard let row = try await pool.run({ try $0.webhook(id: number) }) else { throw APIError.notFound("no webhook \(number)") }
            return (200, row.json)
        }
    }

    /// `DELETE /api/v1/webhooks/{id}`: 204, its deliveries not yet made dropped; 404 if there is none.
    func deleteWebhook(_ request: Request, _ id: String, source: String?) async -> Response {
        let response = await answer(request, scope: .admin) { [self] token in
            let number = try Self.webhookID(id)
            let audit = AuditEntry(tokenName: token.name, action: "webhook.delete", source: source)
            guard try await pool.run({ try $0.deleteWebhook(id: number, audit: audit) }) else {
                throw APIError.notFound("no webhook \(number)")
            }
            return (204, .null)
        }
        guard response.status == .noContent else { return response }
        return Response(status: .noContent, headers: [.cacheControl: "no-store"])
    }

    /// `GET /api/v1/webhooks/{id}/deliveries?state=S&limit=N&cursor=C`: newest first, each with every attempt.
    func listDeliveries(_ request: Request, _ id: String) async -> Response {
        await answer(request, scope: .admin) { [self] _ in
            let number = try Self.webhookID(id)
            let query = request.uri.queryParameters
            let state = query.get("state")
            if let state, !["pending", "delivered", "failed"].contains(state) {
                throw APIError.badRequest("state: '\(state.prefix(100))' is not pending, delivered or failed")
            }
            let limit = try Self.integer(query.get("limit"), name: "limit", range: 1...1000, default: 100)
            let before = try PageCursor.number(query.get("cursor"), marker: "d")
            let rows = try await pool.run { store -> [DeliveryRow]? in
                guard try store.webhook(id: number) != nil else { return nil }
                return try store.deliveries(webhookID: number, state: state, before: before, limit: limit)
            }
            guard let rows else { throw APIError.notFound("no webhook \(number)") }
            let next: JSON = rows.count == limit ? rows.last.map { .string(PageCursor.text("d", $0.id)) } ?? .null : .null
            return (200, ["deliveries": .array(rows.map(\.json)), "next_cursor": next])
        }
    }

    /// A webhook id from the path: a positive whole number.
    static func webhookID(_ text: String) throws -> Int64 {
        guard let number = Int64(text), number >= 1, number <= 9_007_199_254_740_991, text.allSatisfy(\.isNumber) else {
            throw APIError.badRequest("'\(text.prefix(100))' is not a webhook id (a whole number from 1)")
        }
        return number
    }
}
