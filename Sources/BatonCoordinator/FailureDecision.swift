import BatonAMQP
import BatonStore

/// What the coordinator does about an error: a lost connection means reconnect; anything else
/// is deterministic and concerns what was being done, which fails alone and never loops.
enum FailureDecision: Equatable, Sendable {
    /// PostgreSQL or RabbitMQ is gone: back off, reconnect, resume every run.
    case reconnect
    /// Committing a batch failed for another reason: retry it one run at a time.
    case splitBatch
    /// One run's state cannot be read or recorded: fail that run with this message.
    case failRun(String, message: String)
    /// Heartbeats, request marks or publish marks alone cannot be recorded: drop them (they are
    /// bookkeeping; a request not marked handled is taken again, which is harmless).
    case dropBookkeeping

    /// The decision for an error while loading run `runID`.
    static func loading(_ runID: String, error: Error) -> FailureDecision {
        if isConnectionLost(error) { return .reconnect }
        return .failRun(runID, message: "the coordinator cannot load this run: \(error)")
    }

    /// The decision for an error while committing a batch of `runs`.
    static func committing(runs: [String], error: Error) -> FailureDecision {
        if isConnectionLost(error) { return .reconnect }
        if runs.count == 1 { return .failRun(runs[0], message: "the coordinator cannot record this run's progress: \(error)") }
        return runs.isEmpty ? .dropBookkeeping : .splitBatch
    }

    /// Errors that say a connection is unusable. Anything else from the broker (a closed channel,
    /// a refused publish) is also met by reconnecting, since the channel must be opened again.
    static func isConnectionLost(_ error: Error) -> Bool {
        if error is AMQPError { return true }
        return Store.isConnectionLost(error)
    }
}
