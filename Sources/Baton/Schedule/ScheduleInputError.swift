/// A schedule's setting that cannot be used (a zone, a period, a name), as one line naming it.
public struct ScheduleInputError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
