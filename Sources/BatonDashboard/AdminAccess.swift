/// Who may cancel and retry: nobody unless the dashboard was started with a token; then a request
/// that presents it as `Authorization: Bearer TOKEN` and does not come from another site.
///
/// The token travels only in that header (never a cookie), so a page on another site cannot make a
/// browser send it: there is no cross-site request to forge. The origin checks are a second fence.
public struct AdminAccess: Sendable {
    /// What a request gets.
    public enum Decision: Sendable, Equatable {
        case allowed
        /// No token configured: the admin endpoints do not exist (404).
        case disabled
        /// No or a malformed `Authorization` header (401).
        case missingToken
        /// A token that is not the one configured (403).
        case wrongToken
        /// Sent by a page of another origin (403).
        case crossSite

        /// The refusal as an error, nil when allowed.
        public var error: DashboardError? {
            switch self {
            case .allowed: return nil
            case .disabled: return DashboardError(status: 404, "admin actions are off: start `baton dashboard` with --admin-token")
            case .missingToken: return DashboardError(status: 401, "this action needs the admin token (Authorization: Bearer TOKEN)")
            case .wrongToken: return DashboardError(status: 403, "the admin token is wrong")
            case .crossSite: return DashboardError(status: 403, "admin requests from another site are refused")
            }
        }
    }

    let token: [UInt8]?

    public init(token: String?) { self.token = token.map { Array($0.utf8) } }

    public var isEnabled: Bool { token != nil }

    /// The decision for a request with these headers (`origin`, `host` and `fetchSite` as sent, if sent).
    public func decide(authorization: String?, origin: String? = nil, host: String? = nil, fetchSite: String? = nil) -> Decision {
        guard let token else { return .disabled }
        if let fetchSite, fetchSite == "cross-site" || fetchSite == "same-site" { return .crossSite }
        if let origin {
            guard let host, origin == "http://\(host)" || origin == "https://\(host)" else { return .crossSite }
        }
        guard let authorization, authorization.hasPrefix("Bearer ") else { return .missingToken }
        let presented = Array(authorization.dropFirst("Bearer ".count).utf8)
        return Self.constantTimeEqual(presented, token) ? .allowed : .wrongToken
    }

    /// Whether `a` equals `b`, taking the same time whatever bytes differ (it depends only on the lengths).
    public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(a.count == b.count ? 0 : 1)
        let n = max(a.count, b.count)
        for i in 0..<n {
            let x = i < a.count ? a[i] : 0
            let y = i < b.count ? b[i] : 0
            difference |= x ^ y
        }
        return difference == 0
    }
}
