import Baton
import Foundation

/// How the loop goes on after committing a batch failed, as a value (`CoordinatorLoop.record`): it
/// counts the failures in a row and asks `FailureDecision.committing`. A passing error is retried
/// after a back-off, each wait shorter than a third of the partition lease (the partitions are renewed
/// between tries); a batch its own data fails, or that keeps failing, is split one run at a time; one
/// run's data fails that run alone. Every retry, split or reconnect is counted with its `reason`
/// (`baton_commit_retries_total`).
struct CommitRetry {
    /// What to do next.
    enum Action: Equatable {
        /// Wait `delay` seconds (renewing the partitions held), then commit the same batch again.
        case retry(after: Double, reason: String)
        /// Commit the batch one run at a time.
        case split(reason: String)
        /// Give up on the connections: reconnect (the reports come back).
        case reconnect(reason: String)
        /// Carry out this decision (drop bookkeeping, fail one run, stop).
        case decide(FailureDecision)
    }

    /// Failures in a row so far.
    private(set) var failures = 0
    private var backoff: Backoff
    private let partitionLease: Double

    init(partitionLease: Double, random: @escaping @Sendable () -> Double) {
        backoff = Backoff(initial: 0.05, maximum: FailureDecision.reconnectCap, random: random)
        self.partitionLease = partitionLease
    }

    /// Committing a batch of `runs` failed once more with `error`.
    mutating func failed(_ error: Error, runs: [String]) -> Action {
        failures += 1
        let reason = FailureDecision.retryReason(error)
        switch FailureDecision.committing(runs: runs, error: error, failures: failures) {
        case .retryBatch: return .retry(after: min(backoff.next(), partitionLease / 3), reason: reason)
        case .splitBatch: return .split(reason: reason)
        case .reconnect: return .reconnect(reason: reason)
        case let decision: return .decide(decision)
        }
    }
}
