import Baton

/// The one error shape of the API (docs/api.md, "Errors"): `{"error": {"code", "message", "details"}}`
/// with its HTTP status. `message` is one line, in the words the CLI uses for the same input.
public struct APIError: Error, Sendable, Equatable, CustomStringConvertible {
    public let status: Int
    public let code: String
    public let message: String
    /// Every problem when there are several (each problem of an invalid graph); empty otherwise.
    public var details: [JSON]
    /// Seconds to wait before asking again (a 429's or a 503's `Retry-After`), if known.
    public var retryAfter: Int?

    public init(_ status: Int, _ code: String, _ message: String, details: [JSON] = []) {
        self.status = status
        self.code = code
        self.message = message
        self.details = details
    }

    public var description: String { message }

    public var json: JSON {
        ["error": ["code": .string(code), "message": .string(message), "details": .array(details)]]
    }

    public static func badRequest(_ message: String) -> APIError { APIError(400, "bad_request", message) }
    public static func unauthorized(_ message: String) -> APIError { APIError(401, "unauthorized", message) }
    public static func forbidden(_ message: String) -> APIError { APIError(403, "forbidden", message) }
    public static func notFound(_ message: String) -> APIError { APIError(404, "not_found", message) }
    public static func conflict(_ message: String) -> APIError { APIError(409, "conflict", message) }
    public static func payloadTooLarge(_ message: String) -> APIError { APIError(413, "payload_too_large", message) }
    public static func unsupportedMediaType(_ message: String) -> APIError { APIError(415, "unsupported_media_type", message) }
    public static func invalid(_ message: String, details: [JSON] = []) -> APIError { APIError(422, "invalid", message, details: details) }
    public static func rateLimited(_ message: String, retryAfter: Int) -> APIError {
        var error = APIError(429, "rate_limited", message)
        error.retryAfter = max(1, retryAfter)
        return error
    }
    public static func unavailable(_ message: String) -> APIError { APIError(503, "unavailable", message) }
}
