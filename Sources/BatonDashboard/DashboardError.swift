import Baton

/// What went wrong with a request (or a setting), as an HTTP status and one line for the user.
public struct DashboardError: Error, Sendable, Equatable, CustomStringConvertible {
    public let status: Int
    public let message: String

    public init(status: Int, _ message: String) {
        self.status = status
        self.message = message
    }

    /// The JSON body the API answers with: `{"error": "..."}`.
    public var json: JSON { ["error": .string(message)] }

    public var description: String { message }

    static func notFound(_ what: String) -> DashboardError { DashboardError(status: 404, what) }
    static func badRequest(_ what: String) -> DashboardError { DashboardError(status: 400, what) }
}
