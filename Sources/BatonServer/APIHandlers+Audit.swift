import Baton
import BatonStore
import Hummingbird

extension APIHandlers {
    /// `GET /api/v1/audit?action=A&token_name=N&limit=L&cursor=C` (admin): the audit trail, newest first;
    /// `next_cursor` gives the next page (`a` and the last id shown).
    func listAudit(_ request: Request) async -> Response {
        await answer(request, scope: .admin) { [self] _ in
            let query = request.uri.queryParameters
            let limit = try Self.integer(query.get("limit"), name: "limit", range: 1...1000, default: 100)
            let action = query.get("action")
            if let action, !Self.isAuditAction(action) {
                throw APIError.badRequest("action: '\(action.prefix(100))' is not an action (such as run.submit)")
            }
            let tokenName = query.get("token_name")
            if let tokenName, let problem = TokenName.problem(tokenName) { throw APIError.badRequest("token_name: \(problem)") }
            let after = try PageCursor.number(query.get("cursor"), marker: "a", range: 1...Int64.max)
            let rows = try await pool.run { try $0.auditEntries(action: action, tokenName: tokenName, before: after, limit: limit) }
            let next: JSON = rows.count == limit ? rows.last.map { .string(PageCursor.text("a", $0.id)) } ?? .null : .null
            return (200, ["entries": .array(rows.map(\.json)), "next_cursor": next])
        }
    }

    /// Whether `text` has an action's shape, `word.word_word` (lowercase).
    static func isAuditAction(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        let lower = Set("abcdefghijklmnopqrstuvwxyz".utf8)
        return parts.count == 2 && text.utf8.count <= 64 && !parts[0].isEmpty && parts[0].utf8.allSatisfy(lower.contains) && !parts[1].isEmpty
            && parts[1].utf8.allSatisfy { lower.contains($0) || $0 == UInt8(ascii: "_") }
    }
}
