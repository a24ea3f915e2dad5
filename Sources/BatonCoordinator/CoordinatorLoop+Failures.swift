import Baton
import BatonStore
import Foundation

/// Errors that do not end the loop: passing ones retried in place, and runs failed as a whole
/// whose failure must still be written (`carryOut` decides; this carries out the writing).
extension CoordinatorLoop {
    /// Writes the failures of runs failed as a whole. A passing error is retried at once (with
    /// back-off); a failure that still cannot be written stays in `unrecordedFailures` and is tried
    /// again at the next poll, so the run never stays `running` in the database while forgotten here.
    func recordFailures() throws {
        guard let store else { return }
        for (id, message) in unrecordedFailures.sorted(by: { $0.key < $1.key }) {
            do {
                try retryingPassingErrors("recording that run \(id) failed") { try store.failRun(id, error: message) }
                unrecordedFailures[id] = nil
                cache.ended(id)
            } catch {
                let decision = FailureDecision.recordingFailure(error)
                guard decision == .retryLater else {
                    try carryOut(decision, error: error)  // reconnects or stops
                    continue
                }
                logger.error("run \(id): cannot record that it failed yet (\(error)); trying again later")
            }
        }
    }

    /// Runs `write`, retrying it with back-off while it fails with a passing error (serialization
    /// failure, deadlock, lack of resources, a cancelled statement, a lock not available), until stopped.
    func retryingPassingErrors<T>(_ what: String, _ write: () throws -> T) throws -> T {
        var backoff = Backoff(initial: 0.05, maximum: FailureDecision.reconnectCap, random: configuration.random)
        while true {
            do { return try write() } catch  where FailureDecision.passes(error) {
                let delay = backoff.next()
                let code = StoreFailure.sqlState(of: error) ?? "?"
                logger.warning("\(what) failed with SQLSTATE \(code), retrying in \(String(format: "%.2f", delay)) s: \(error)")
                health.beat(quietFor: delay)
                if configuration.pause(delay, stop) { throw error }
            }
        }
    }
}
