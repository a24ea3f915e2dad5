import Baton

/// A refusal or failure from `baton server`: the API's error (`code`, one-line `message`, each
/// problem in `details`, and the HTTP status), or a transport failure (`status` 0, code `transport`).
public struct BatonClientError: Error, Sendable, Equatable, CustomStringConvertible {
    public let status: Int
    public let code: String
    public let message: String
    public let details: [JSON]
    /// Seconds the server asked to wait (429, 503), if it said.
    public let retryAfter: Int?

    public init(status: Int, code: String, message: String, details: [JSON] = [], retryAfter: Int? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.retryAfter = retryAfter
    }

    public var description: String { status == 0 ? message : "\(message) (HTTP \(status), \(code))" }
}
