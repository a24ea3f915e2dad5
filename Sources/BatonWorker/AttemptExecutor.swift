import Baton
import Foundation

/// Runs procedures for a worker: the production one starts a Swift task per attempt; the cluster
/// simulator's runs them when its virtual clock says, so a whole cluster replays from a seed.
public protocol AttemptExecutor: Sendable {
    /// Starts `task`. `report` posts a report (started, progress, log) and says whether it was taken
    /// (a log line or progress is refused while the worker's outbox is full); `result` posts the attempt's
    /// result as soon as it is known (a timeout when it fires); `finished` is called once the
    /// procedure's body has returned, after `result`. Returns a handle that cancels the attempt.
    func start(
        _ task: TaskDispatch, configuration: WorkerConfiguration, report: @escaping @Sendable (ReportMessage) -> Bool,
        result: @escaping @Sendable (AttemptResult<EncodedJSON>) -> Void, finished: @escaping @Sendable () -> Void
    ) -> AttemptHandle
}

/// Cancels a running attempt.
public struct AttemptHandle: Sendable {
    public let cancel: @Sendable () -> Void
    public init(cancel: @escaping @Sendable () -> Void) { self.cancel = cancel }
}
