import Baton

/// Who is looking at the dashboard: the token signed in (by a session cookie or a bearer header), or
/// nobody under `--public-read` (read only). The pages show what its scopes allow.
public struct Viewer: Sendable, Equatable {
    /// The token's name; nil for an anonymous reader under `--public-read`.
    public var name: String?
    public var scopes: Set<AccessScope>
    /// Whether it came with a session cookie (it can sign out).
    public var hasSession: Bool

    public init(name: String?, scopes: Set<AccessScope>, hasSession: Bool = false) {
        self.name = name
        self.scopes = scopes
        self.hasSession = hasSession
    }

    /// An anonymous reader, let in by `--public-read`.
    public static let anonymous = Viewer(name: nil, scopes: [.read])

    /// Whether it may act with `scope` (admin implies every scope).
    public func may(_ scope: AccessScope) -> Bool { scope.isGranted(by: scopes) }
}
