import Baton
import BatonPostgres
import Foundation

/// One entry of a run's event log.
public struct EventRow: Sendable, Codable {
    public let id: Int
    public let node: String?
    public let kind: String
    public let at: String
    public let detail: JSON

    public init(id: Int, node: String?, kind: String, at: String, detail: JSON) {
        self.id = id
        self.node = node
        self.kind = kind
        self.at = at
        self.detail = detail
    }

    /// The kind as a case (nil: a kind this build does not know; the row shows its text, `EventKind`).
    public var eventKind: EventKind? { EventKind(rawValue: kind) }
}
