import Baton
import BatonStore
import Foundation
import Hummingbird

extension DashboardHandlers {
    /// How long a session lasts (never beyond its token's expiry).
    static let sessionLifetime: Double = 12 * 3600

    /// `GET /login`: the sign-in form, coming back to `?next=` afterwards.
    func loginPage(_ request: Request) -> Response {
        let next = SignInGate.safeNext(QueryParameters.parse(request.uri.query)["next"])
        return DashboardResponse.html(LoginPage(next: next).render())
    }

    /// `POST /login` (form-encoded `token`, `next`): a live token starts a session, sets the
    /// `baton_session` cookie and goes (303) to `next`; anything else shows the form again with one
    /// line (401). A form posted from another site is refused (403).
    func login(_ request: Request, source: String?) async -> Response {
        let header = { (name: String) in HTTPFields.Element.Name(name).flatMap { request.headers[$0] } }
        guard AdminAccess.sameSite(origin: header("Origin"), host: request.head.authority, fetchSite: header("Sec-Fetch-Site")) else {
            return DashboardResponse.html(LoginPage(next: "/", problem: "sign-in forms from another site are refused").render(), status: 403)
        }
        let form: [String: String]
        do {
            form = QueryParameters.parse(String(buffer: try await request.body.collect(upTo: 16 * 1024)))
        } catch {
            return DashboardResponse.html(LoginPage(next: "/", problem: "the sign-in form is more than 16 KiB").render(), status: 413)
        }
        let next = SignInGate.safeNext(form["next"])
        let text = (form["token"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        func refuse(_ line: String, status: Int = 401) -> Response {
            DashboardResponse.html(LoginPage(next: next, problem: line).render(), status: status)
        }
        guard !text.isEmpty else { return refuse("paste a token to sign in") }
        let secret = TokenSecret(text: text)
        guard secret.isWellFormed else { return refuse("that is not a Baton token (they start with baton_)") }
        let started: (session: TokenSecret, token: TokenRow)?
        do {
            started = try await pool.run(write: true) { try $0.startSession(secret: secret, lifetime: Self.sessionLifetime, source: source) }
        } catch {
            let problem = DashboardResponse.problem(error)
            return refuse(problem.message, status: problem.status == 500 ? 503 : problem.status)
        }
        guard let started else { return refuse("the token is unknown, expired or revoked") }
        var headers = HTTPFields()
        headers[.location] = next
        headers[.setCookie] = sessionCookie(started.session.text, maxAge: Int(Self.sessionLifetime)).description
        headers[.cacheControl] = "no-store"
        return Response(status: .seeOther, headers: headers)
    }

    /// `POST /logout`: ends the session, clears the cookie, and goes (303) to the sign-in page.
    func logout(_ request: Request) async -> Response {
        let header = { (name: String) in HTTPFields.Element.Name(name).flatMap { request.headers[$0] } }
        guard AdminAccess.sameSite(origin: header("Origin"), host: request.head.authority, fetchSite: header("Sec-Fetch-Site")) else {
            return DashboardResponse.apiError(DashboardError(status: 403, "sign-out requests from another site are refused"))
        }
        if let value = request.cookies[SignInMiddleware.cookie]?.value, !value.isEmpty {
            let session = TokenSecret(text: value)
            do { _ = try await pool.run(write: true) { try $0.endSession(session) } } catch { return DashboardResponse.apiError(error) }
        }
        var headers = HTTPFields()
        headers[.location] = "/login"
        headers[.setCookie] = sessionCookie("", maxAge: 0).description
        headers[.cacheControl] = "no-store"
        return Response(status: .seeOther, headers: headers)
    }

    /// The session cookie: HttpOnly, SameSite=Strict, Path=/, Secure under TLS; `maxAge` 0 clears it.
    func sessionCookie(_ value: String, maxAge: Int) -> Cookie {
        Cookie(
            name: SignInMiddleware.cookie, value: value, maxAge: maxAge, path: "/", secure: secureCookies, httpOnly: true, sameSite: .strict)
    }
}
