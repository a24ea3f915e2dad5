/// A due time that did not fire, and why.
public struct ScheduleSkip: Sendable, Equatable {
    public let due: Double
    public let reason: String

    public init(due: Double, reason: String) {
        self.due = due
        self.reason = reason
    }
}
