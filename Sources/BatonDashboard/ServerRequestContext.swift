import Hummingbird

/// The request context of `baton server`'s routes: Hummingbird's, and the client's address (for the
/// audit trail), read from the connection when the request comes in.
public struct ServerRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The peer of the connection as the server saw it, `IP:PORT` (no proxy header is trusted).
    public let clientAddress: String?
    /// Who signed in (session cookie or bearer token), set by `SignInMiddleware` outside `/api/v1`;
    /// `Viewer.anonymous` under `--public-read` for someone not signed in.
    public var viewer: Viewer?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        clientAddress = source.channel.remoteAddress.flatMap { address in address.ipAddress.map { "\($0):\(address.port ?? 0)" } }
    }
}
