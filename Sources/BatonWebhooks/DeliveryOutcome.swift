/// What a receiver answered to one post: its status (nil when none came), the error, how long it took.
public struct DeliveryOutcome: Sendable, Equatable {
    public var status: Int?
    public var error: String?
    public var durationMs: Int

    public init(status: Int?, error: String?, durationMs: Int) {
        self.status = status
        self.error = error
        self.durationMs = durationMs
    }

    /// `HTTP 503`, or the error, for the log.
    public var summary: String { status.map { "HTTP \($0)" } ?? (error ?? "no answer") }
}
