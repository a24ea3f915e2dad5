/// What a schedule does when a time is due while its previous run has not finished.
public enum OverlapRule: String, Sendable, CaseIterable {
    /// Do not fire; the time is recorded as skipped.
    case skip
    /// Fire once the previous run finishes; at most one time waits (a newer one replaces it).
    case queue
    /// Fire anyway: runs of the schedule may overlap.
    case allow
}
