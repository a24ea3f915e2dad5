import Baton
import BatonHTTP

/// How `baton server` runs its dashboard: where it listens, the database, who may read, and TLS.
public struct DashboardConfiguration: Sendable {
    public var listen: ListenAddress
    public var databaseURL: String
    /// Whether pages, the dashboard's JSON and `/api/v1`'s reads are open to anyone (`--public-read`);
    /// otherwise they need a signed-in session or a bearer token.
    public var publicRead: Bool
    /// The certificate and key files (PEM) to serve HTTPS with; nil for plain HTTP.
    public var tls: TLSFiles?
    /// Database connections (and threads) the dashboard keeps at most.
    public var connections: Int

    public init(listen: ListenAddress, databaseURL: String, publicRead: Bool = false, tls: TLSFiles? = nil, connections: Int = 3) {
        self.listen = listen
        self.databaseURL = databaseURL
        self.publicRead = publicRead
        self.tls = tls
        self.connections = connections
    }

    /// `--tls-cert` and `--tls-key`, both or neither.
    public struct TLSFiles: Sendable, Equatable {
        public var certificate: String
        public var key: String

        public init(certificate: String, key: String) {
            self.certificate = certificate
            self.key = key
        }
    }
}
