import Baton
import Foundation

/// A coordinator driven one turn at a time by a caller of its own, on the caller's clock: the
/// cluster simulator runs the real coordinator this way, with in-memory twins behind its seams.
/// Production runs the same turns on a thread of their own (`Coordinator`).
public final class SteppedCoordinator: @unchecked Sendable {
    // Safe: one caller at a time (the simulator is single-threaded).
    private let loop: CoordinatorLoop

    public init(configuration: CoordinatorConfiguration) { loop = CoordinatorLoop(configuration: configuration) }

    /// One turn (connect, stand by, or one batch); the reason when it must stop.
    public func turn() -> CoordinatorStop? { loop.turn() }

    /// Not before this time does a turn do anything (a back-off).
    public var resumeAt: Date { loop.resumeAt }

    /// True while it leads and is connected.
    public var isLeading: Bool { loop.connected && loop.store != nil }

    /// About the bytes of the outputs it holds in memory, as `RunState.heldOutputBytes` counts them:
    /// what its memory budget (`CoordinatorConfiguration.memoryBudget`) bounds.
    public var heldOutputBytes: Int { loop.runs.values.reduce(0) { $0 + $1.heldOutputBytes } }

    /// About the bytes of the outputs and resolved inputs it holds in memory (`RunState.heldBytes`).
    public var heldBytes: Int { loop.runs.values.reduce(0) { $0 + $1.heldBytes } }

    /// Unfinished runs it holds in memory.
    public var cachedRuns: Int { loop.runs.count }

    /// The process dies: its connections close (the broker gives back what it had not acked, the
    /// database ends its session, which frees its partitions); nothing else is written.
    public func crash() { loop.disconnect() }
}
