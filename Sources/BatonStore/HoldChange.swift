import Baton

/// A change to `baton.holds` (mutex, concurrency and cache requests), netted for one batch:
/// a row is inserted, granted or deleted at most once per statement.
public enum HoldChange: Sendable, Equatable {
    case insert(AdmissionTable.Entry)
    case grant(seq: Int64)
    case delete(seq: Int64)
}

extension HoldChange {
    /// The run an inserted hold belongs to (grants and deletes name only the hold).
    public var runID: String? {
        if case let .insert(entry) = self { entry.runID } else { nil }
    }
}
