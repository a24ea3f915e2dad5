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
}
