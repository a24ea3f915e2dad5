import Baton

/// Who may cancel, retry and signal from the dashboard: a signed-in viewer whose token holds the
/// `operate` scope, in a request that does not come from another site. The session cookie is
/// SameSite=Strict, so another site cannot make a browser send it; the origin checks are a second fence.
public enum AdminAccess {
    /// What a request gets.
    public enum Decision: Sendable, Equatable {
        case allowed
        /// Nobody signed in (401).
        case notSignedIn
        /// A token without the scope (403).
        case lacksScope(token: String, scope: AccessScope)
        /// Sent by a page of another origin (403).
        case crossSite

        /// The refusal as an error, nil when allowed.
        public var error: DashboardError? {
            switch self {
            case .allowed: return nil
            case .notSignedIn: return DashboardError(status: 401, "sign in first (/login) with a token that has the operate scope")
            case .lacksScope(let token, let scope):
                return DashboardError(status: 403, "token '\(token)' lacks the \(scope.rawValue) scope this needs")
            case .crossSite: return DashboardError(status: 403, "admin requests from another site are refused")
            }
        }
    }

    /// The decision for a request by `viewer` needing `scope`, with these headers (`origin`, `host` and
    /// `fetchSite` as sent, if sent).
    public static func decide(
        viewer: Viewer?, needs scope: AccessScope, origin: String? = nil, host: String? = nil, fetchSite: String? = nil
    ) -> Decision {
        if !sameSite(origin: origin, host: host, fetchSite: fetchSite) { return .crossSite }
        guard let viewer, let name = viewer.name else { return .notSignedIn }
        return viewer.may(scope) ? .allowed : .lacksScope(token: name, scope: scope)
    }

    /// Whether a request's headers say it comes from this server's own pages (or from no page at all,
    /// as curl's requests do).
    /// `Sec-Fetch-Site` (set by the browser, no page can change it) decides when sent: a form posted
    /// from a page with `Referrer-Policy: no-referrer`, as the sign-in form is, says `Origin: null`.
    public static func sameSite(origin: String?, host: String?, fetchSite: String?) -> Bool {
        if let fetchSite { return fetchSite == "same-origin" || fetchSite == "none" }
        if let origin {
            guard let host, origin == "http://\(host)" || origin == "https://\(host)" else { return false }
        }
        return true
    }
}
