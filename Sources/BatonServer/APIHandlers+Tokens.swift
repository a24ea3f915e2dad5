import Baton
import BatonStore
import Foundation
import Hummingbird

/// Tokens through the API (admin scope): made (the secret in the answer, once), listed, revoked.
extension APIHandlers {
    /// `GET /api/v1/tokens?include_revoked=true`: the tokens, never a secret.
    func listTokens(_ request: Request) async -> Response {
        await answer(request, scope: .admin) { [self] _ in
            let include: Bool
            switch request.uri.queryParameters.get("include_revoked") {
            case nil, "false": include = false
            case "true": include = true
            case let other?: throw APIError.badRequest("include_revoked: '\(other)' is not true or false")
            }
            let (tokens, now) = try await pool.run { store in (try store.tokens(includeRevoked: include), try store.databaseNow()) }
            return (200, ["tokens": .array(tokens.reversed().map { $0.json(at: now) }), "next_cursor": .null])
        }
    }

    /// `POST /api/v1/tokens` with `{"name", "scopes": [...], "expires_in": "90d"}` (no `expires_in`: never).
    func createToken(_ request: Request, source: String?) async -> Response {
        await answer(request, scope: .admin) { [self] token in
            let body = try await APIBody.object(request, limit: 65_536, allowed: ["name", "scopes", "expires_in"])
            guard let name = body["name"]?.stringValue else { throw APIError.invalid("the body needs `name`, a string") }
            if let problem = TokenName.problem(name) { throw APIError.invalid(problem) }
            guard let list = body["scopes"]?.arrayValue, !list.isEmpty, list.allSatisfy({ $0.stringValue != nil }) else {
                throw APIError.invalid("`scopes` must be a non-empty array of read, submit, operate or admin")
            }
            let scopes = try Self.scopes(list.compactMap(\.stringValue))
            var lifetime: Double?
            if let given = body["expires_in"] {
                guard let text = given.stringValue, let seconds = Self.lifetime(text) else {
                    throw APIError.invalid("`expires_in` must be a duration in hours, days or weeks, such as 12h, 90d or 8w")
                }
                lifetime = seconds
            }
            let audit = AuditEntry(tokenName: token.name, action: "token.create", source: source)
            let made: (row: TokenRow, secret: TokenSecret)
            do {
                made = try await pool.run(write: true) { [lifetime] in
                    try $0.createToken(name: name, scopes: scopes, expiresIn: lifetime, audit: audit)
                }
            } catch let exists as TokenExists {
                throw APIError.conflict(exists.description)
            }
            var json = made.row.json(at: Date().timeIntervalSince1970).objectValue ?? JSONObject([])
            json["token"] = .string(made.secret.text)
            return (201, .object(json))
        }
    }

    /// `DELETE /api/v1/tokens/{name}`: revoked from now on (204); 404 when no token of that name is live.
    func revokeToken(_ request: Request, _ name: String, source: String?) async -> Response {
        let response = await answer(request, scope: .admin) { [self] token in
            let audit = AuditEntry(tokenName: token.name, action: "token.revoke", source: source)
            guard try await pool.run(write: true, { try $0.revokeToken(name, audit: audit) }) else {
                throw APIError.notFound("no token named '\(name)' that is not revoked")
            }
            return (204, .null)
        }
        guard response.status == .noContent else { return response }
        return Response(status: .noContent, headers: [.cacheControl: "no-store"])
    }

    /// Seconds of `12h`, `90d`, `8w` (1 to 9999 of the unit), or nil.
    static func lifetime(_ text: String) -> Double? {
        let units: [Character: Double] = ["h": 3600, "d": 86_400, "w": 604_800]
        guard let unit = text.last, let seconds = units[unit], let count = Int(text.dropLast()), (1...9999).contains(count),
            text.dropLast().allSatisfy(\.isNumber)
        else { return nil }
        return Double(count) * seconds
    }

    /// `scopes` as the document gives them: each exactly one of the scope names, none twice.
    static func scopes(_ names: [String]) throws -> Set<AccessScope> {
        var scopes: Set<AccessScope> = []
        for name in names {
            guard let scope = AccessScope(rawValue: name) else {
                throw APIError.invalid("scopes: '\(name.prefix(100))' is not a scope (use read, submit, operate or admin)")
            }
            guard scopes.insert(scope).inserted else { throw APIError.invalid("scopes: '\(name)' is given twice") }
        }
        return scopes
    }
}
