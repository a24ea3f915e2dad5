import BatonHTTP

/// How `baton dashboard` runs: where it listens, the database, and the admin token if any.
public struct DashboardConfiguration: Sendable {
    public var listen: ListenAddress
    public var databaseURL: String
    /// Nil: read-only (the admin endpoints answer 404).
    public var adminToken: String?
    /// Database connections (and threads) the dashboard keeps at most.
    public var connections: Int

    public init(listen: ListenAddress, databaseURL: String, adminToken: String?, connections: Int = 3) {
        self.listen = listen
        self.databaseURL = databaseURL
        self.adminToken = adminToken
        self.connections = connections
    }

    /// The token from the flag, else the environment; an empty or spaced one is an error.
    public static func adminToken(flag: String?, environment: String?) throws(DashboardError) -> String? {
        guard let token = flag ?? environment else { return nil }
        let source = flag != nil ? "--admin-token" : "BATON_DASHBOARD_TOKEN"
        guard !token.isEmpty else { throw DashboardError(status: 400, "\(source) is empty (leave it out for a read-only dashboard)") }
        guard token.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7f }) else {
            throw DashboardError(status: 400, "\(source): use printable ASCII without spaces")
        }
        return token
    }
}
