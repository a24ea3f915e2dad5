import Foundation

/// Why a node is `waiting`.
public enum WaitReason: String, Sendable, Equatable {
    case retry
    case `repeat`
    case delay
}
