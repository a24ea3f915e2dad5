import Baton
import BatonStore
import Foundation
import Hummingbird

/// Outside `/api/v1`: finds who signed in, from the `baton_session` cookie or else an
/// `Authorization: Bearer` token, puts it in the context, and carries out `SignInGate`'s answer for
/// those who did not.
struct SignInMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext

    let pool: StorePool
    let publicRead: Bool

    /// What `next=` keeps unencoded: a path's letters, digits and `-._~/`.
    static let nextCharacters = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: "\u{21}"..."\u{7e}")).union(
        CharacterSet(charactersIn: "-._~/"))

    /// The session cookie's name.
    static let cookie = "baton_session"

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        if path.hasPrefix("/api/v1/") || path.hasPrefix("/assets/") { return try await next(request, context) }
        var context = context
        do { context.viewer = try await viewer(request) } catch { return DashboardResponse.apiError(error) }
        switch SignInGate.decide(path: path, query: request.uri.query, signedIn: context.viewer != nil, publicRead: publicRead) {
        case .pass:
            if context.viewer == nil && publicRead { context.viewer = .anonymous }
            return try await next(request, context)
        case .signIn(let next):
            var headers = HTTPFields()
            headers[.location] = "/login?next=" + (next.addingPercentEncoding(withAllowedCharacters: Self.nextCharacters) ?? "/")
            headers[.cacheControl] = "no-store"
            return Response(status: .seeOther, headers: headers)
        case .unauthorized:
            return DashboardResponse.json(["error": "sign in first: this needs a session (/login) or Authorization: Bearer TOKEN"], status: 401)
        }
    }

    /// The viewer a request shows: a live session's token, else a live bearer token; nil for neither.
    /// A database failure is the store pool's error (503), not a sign-in.
    func viewer(_ request: Request) async throws -> Viewer? {
        if let value = request.cookies[Self.cookie]?.value, !value.isEmpty {
            let session = TokenSecret(text: value)
            if let token = try await pool.run({ try $0.sessionToken(session) }) {
                return Viewer(name: token.name, scopes: token.scopes, hasSession: true)
            }
        }
        if let authorization = request.headers[.authorization] {
            let parts = authorization.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
            let secret = TokenSecret(text: String(parts[1]))
            guard secret.isWellFormed else { return nil }
            if let token = try await pool.run({ try $0.token(secret: secret) }) { return Viewer(name: token.name, scopes: token.scopes) }
        }
        return nil
    }
}
