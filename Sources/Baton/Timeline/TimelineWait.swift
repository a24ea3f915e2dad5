/// A time a node spent `waiting`, and why: `retry` (back-off after a failed attempt, event
/// `retrying`), `repeat` (`repeating`), `delay` (`baton.delay`), `admission` (mutex, concurrency or
/// cache, `awaiting_admission`), `rate` and `signal` (`awaiting_rate`, `awaiting_signal`), or for
/// another `awaiting_X` event `X`, for another event with a `due_at` its kind.
public struct TimelineWait: Sendable, Equatable {
    public var reason: String
    /// The node's attempt number when it began waiting.
    public var attempt: Int
    /// Seconds since 1970.
    public var from: Double
    /// nil: still waiting.
    public var to: Double?
    /// When the wait is due to end, if the event said (`due_at`).
    public var due: Double?

    public init(reason: String, attempt: Int, from: Double, to: Double? = nil, due: Double? = nil) {
        self.reason = reason
        self.attempt = attempt
        self.from = from
        self.to = to
        self.due = due
    }

    /// The reason of the wait an event of `kind` begins (nil: it begins none).
    public static func reason(forKind kind: String, hasDue: Bool) -> String? {
        switch EventKind(rawValue: kind) {
        case .retrying: return "retry"
        case .repeating: return "repeat"
        case .delay: return "delay"
        case _ where kind.hasPrefix("awaiting_") && kind.count > "awaiting_".count: return String(kind.dropFirst("awaiting_".count))
        default: return hasDue ? kind : nil
        }
    }
}
