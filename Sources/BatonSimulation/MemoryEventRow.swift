import Baton
import Foundation

/// A row of `baton.events` in a `MemoryStore`: one entry of a run's event log.
public struct MemoryEventRow: Sendable, Equatable {
    /// Increasing across the whole store, in the order the events were written.
    public let id: Int64
    public let runID: String
    /// Nil for an event of the run itself (`submitted`, `run_succeeded`, …).
    public let node: String?
    public let kind: String
    public let at: Date
    public let detail: JSON

    /// The kind as a case (nil: a kind this build does not know, `EventKind`).
    public var eventKind: EventKind? { EventKind(rawValue: kind) }
}
