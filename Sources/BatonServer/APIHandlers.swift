import Baton
import BatonDashboard
import BatonStore
import Foundation
import Hummingbird

/// What each API route does: the token checked (`APIAccess`), the request parsed, the queries run on
/// the store pool's threads, the answer built. Every failure becomes an `APIError` answer here.
struct APIHandlers: Sendable {
    let pool: StorePool
    let limits: GraphLimits
    let rates: RateLimiter
    /// `--public-read`: operations of scope `read` need no token (one sent is still checked).
    var publicRead = false
    /// The event streams open, per token.
    let streams = StreamSlots()

    /// Answers `request` with `body`'s status and JSON once its token is let in with `scope` (nil: any
    /// live token); a refusal or failure becomes its error answer.
    func answer(
        _ request: Request, scope: AccessScope?, _ body: @Sendable (TokenRow) async throws -> (status: Int, value: JSON)
    ) async -> Response {
        do {
            let token = try await authorize(request, scope: scope)
            let (status, value) = try await body(token)
            return APIResponse.json(value, status: status)
        } catch {
            return APIResponse.error(Self.apiError(error))
        }
    }

    /// The live token the request shows, if it holds `scope`; throws the 401 or 403 otherwise.
    func authorize(_ request: Request, scope: AccessScope?) async throws -> TokenRow {
        if publicRead, scope == .read, request.headers[.authorization] == nil { return Self.publicReader }
        let secret = try APIAccess.secret(authorization: request.headers[.authorization]).get()
        guard let token = try await pool.run({ try $0.token(secret: secret) }) else { throw APIAccess.unknownToken }
        if let refusal = rates.refusal(token.name) { throw refusal }
        if let refusal = APIAccess.refusal(token, needs: scope) { throw refusal }
        return token
    }

    /// Who reads without a token under `--public-read` (not rate-limited: it is no token).
    static let publicReader = TokenRow(name: "public", prefix: "", scopes: [.read], createdAt: 0)

    /// Any error as the API's: the store pool's own (busy, unreachable) keep their status.
    static func apiError(_ error: Error) -> APIError {
        switch error {
        case let error as APIError: return error
        case let error as DashboardError where error.status == 404: return .notFound(error.message)
        case let error as DashboardError where error.status == 503: return .unavailable(error.message)
        case let error as DashboardError: return APIError(error.status, "bad_request", error.message)
        default: return .unavailable("the database failed: \(error)")
        }
    }

    /// `GET /api/v1/whoami`: the token the request was made with.
    func whoami(_ request: Request) async -> Response {
        await answer(request, scope: nil) { token in
            (
                200,
                [
                    "name": .string(token.name), "scopes": .array(token.scopes.sorted().map { .string($0.rawValue) }),
                    "expires_at": token.expiresAt.map { .string(CivilDate.iso8601($0)) } ?? .null,
                ]
            )
        }
    }

    /// `GET /api/v1/openapi.json`: the document this server implements; no token needed.
    func openAPI() -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "max-age=300"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: OpenAPIDocument.text + "\n")))
    }

    /// A run id from the path: a whole UUID, in either case.
    static func runID(_ text: String) throws -> String {
        let lower = text.lowercased()
        guard lower.count == 36, UUID(uuidString: lower) != nil else {
            throw APIError.badRequest("'\(text)' is not a run id (a UUID such as 0f6c2a8e-…)")
        }
        return lower
    }
}
