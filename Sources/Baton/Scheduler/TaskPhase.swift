import Foundation

/// Whether a task runs a node's procedure or its condition.
public enum TaskPhase: String, Sendable, Equatable, Codable {
    case run
    case condition
}
