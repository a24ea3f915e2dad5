/// Which requests outside `/api/v1` need a signed-in viewer, and what one without it gets: a page
/// redirects (303) to `/login?next=PATH`, the dashboard's internal `/api/` answers 401. A value; the
/// middleware only carries out its answer.
public enum SignInGate {
    public enum Answer: Sendable, Equatable {
        /// Let through (signed in, `--public-read`, or a path open to all).
        case pass
        /// To the sign-in page, coming back to `next` afterwards.
        case signIn(next: String)
        /// 401 JSON (the dashboard's internal API).
        case unauthorized
    }

    /// Paths anyone may reach: the sign-in form and its assets, and `/api/v1` (it checks bearer tokens itself).
    public static func isOpen(_ path: String) -> Bool {
        path == "/login" || path == "/logout" || path.hasPrefix("/assets/") || path == "/api/v1" || path.hasPrefix("/api/v1/")
    }

    /// The answer for a request of `path` (with `query`, as sent) when `signedIn` (or `publicRead`).
    public static func decide(path: String, query: String?, signedIn: Bool, publicRead: Bool) -> Answer {
        if signedIn || publicRead || isOpen(path) { return .pass }
        if path == "/api" || path.hasPrefix("/api/") { return .unauthorized }
        let next = path + (query.map { $0.isEmpty ? "" : "?" + $0 } ?? "")
        return .signIn(next: next)
    }

    /// Where to go after signing in: `next` when it is a path on this server, `/` otherwise (so the
    /// form cannot send a user to another site).
    public static func safeNext(_ next: String?) -> String {
        guard let next, next.hasPrefix("/"), !next.hasPrefix("//"), !next.hasPrefix("/\\"), next.utf8.count <= 2048,
            next.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7f })
        else { return "/" }
        return next
    }
}
