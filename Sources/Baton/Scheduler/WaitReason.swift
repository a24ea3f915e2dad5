import Foundation

/// Why a node is `waiting`.
public enum WaitReason: String, Sendable, Equatable {
    case retry
    case `repeat`
    case delay
    /// For a mutex, a concurrency slot or a cache lookup (`.acquire`).
    case admission
    /// For a signal (`baton signal`): a signal node waits, holding no worker slot, until one comes.
    case signal
}
