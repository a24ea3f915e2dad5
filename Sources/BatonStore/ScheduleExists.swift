/// `addSchedule` found a schedule of that name already.
public struct ScheduleExists: Error, Sendable, CustomStringConvertible {
    public let name: String
    public var description: String { "schedule '\(name)' already exists (delete it first, or choose another name)" }
}
