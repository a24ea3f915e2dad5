/// What a schedule does with due times it missed (its coordinator was down, or a firing came late).
public enum CatchUpRule: String, Sendable, CaseIterable {
    /// Skip them; a due time fires only if it is at most `ScheduleDecision.lateness` old.
    case none
    /// Fire the most recent missed time, once; skip the older ones.
    case last
    /// Fire every missed time, oldest first, at most `ScheduleDecision.catchUpBound` of them.
    case all
}
