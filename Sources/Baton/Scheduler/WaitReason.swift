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
    /// For a pause (`baton pause`) of its run, pool or procedure to end: it holds no slot and no
    /// admission meanwhile, and goes on where it was (condition or run, new attempt or not) on resume.
    case paused
}
