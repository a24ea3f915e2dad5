import BatonAMQP
import BatonStore

/// What the coordinator does about an error, decided from the SQLSTATE (`StoreFailure`) or the AMQP
/// reply code (`AMQPError.disposition`), never from the message. docs/operations.md shows this table.
///
/// | error | action |
/// |---|---|
/// | PostgreSQL connection lost (class 08, 57P01-57P03), AMQP connection lost, forced close (320) | reconnect with back-off, resume every run |
/// | 40001, 40P01, class 53, class 57, 55P03 on a commit | roll back, back off, commit the same batch again (split after 3 tries); nothing acked meanwhile |
/// | class 22, 23, 54 on a commit (one run's data), a statement over 1 GB refused before sending | split the batch; fail that run alone with the error text |
/// | AMQP 403, 530, 406, a bad URL | fatal at start-up; at run time logged with the code and retried, back-off capped at 30 s |
/// | any other PostgreSQL error | stop the coordinator with one line (the other coordinators take its partitions) |
enum FailureDecision: Equatable, Sendable {
    /// PostgreSQL or RabbitMQ is gone: back off (up to `cap` seconds), reconnect, resume every run.
    case reconnect(cap: Double)
    /// A passing condition: nothing was written; back off and commit the same batch again.
    case retryBatch
    /// Committing a batch of several runs failed on one run's data: commit them one run at a time.
    case splitBatch
    /// One run's state cannot be read or recorded: fail that run with this message.
    case failRun(String, message: String)
    /// Heartbeats, request marks or publish marks alone cannot be recorded: drop them (they are
    /// bookkeeping; a request not marked handled is taken again, which is harmless).
    case dropBookkeeping
    /// Retrying cannot help: stop the coordinator with this line.
    case stop(String)
    /// A run's failure cannot be written yet: it stays to write, tried again at the next poll.
    case retryLater

    /// The usual cap of the reconnect back-off, in seconds.
    static let reconnectCap = 5.0

    /// The decision for an error while loading run `runID`.
    static func loading(_ runID: String, error: Error) -> FailureDecision {
        switch StoreFailure(error) {
        case .reconnect, .retry: return .reconnect(cap: reconnectCap)
        case .rejectData: return .failRun(runID, message: "the coordinator cannot load this run: \(error)")
        case .fatal: return .stop("cannot read run \(runID) from PostgreSQL: \(error)")
        }
    }

    /// The decision for an error while writing that a run failed as a whole (after passing errors were
    /// retried in place): the run's failure is kept and written later unless the connection is gone
    /// (reconnect) or PostgreSQL refuses for good (stop).
    static func recordingFailure(_ error: Error) -> FailureDecision {
        switch StoreFailure(error) {
        case .reconnect: return .reconnect(cap: reconnectCap)
        case .fatal: return .stop("cannot write to PostgreSQL: \(error)")
        case .retry, .rejectData: return .retryLater
        }
    }

    /// Whether `error` passes (serialization failure, deadlock, lack of resources, a cancelled
    /// statement, a lock not available): the same write is retried in place after a back-off.
    static func passes(_ error: Error) -> Bool { StoreFailure(error) == .retry }

    /// A batch of several runs that failed this many times in a row with a passing error is split
    /// rather than sent again unchanged (a statement timeout or a deadlock can be its size's doing).
    static let retriesBeforeSplit = 3

    /// The decision for an error while committing a batch of `runs` that has now failed `failures`
    /// times in a row (this one included). A batch is never sent again unchanged for ever: one that
    /// its own content fails is split (one run at a time, and that run failed alone); one that a
    /// passing error keeps failing is split after `retriesBeforeSplit` tries; one run's alone backs off.
    static func committing(runs: [String], error: Error, failures: Int = 1) -> FailureDecision {
        if BrokerFailure(error) != nil { return connection(error, everConnected: true) }
        switch StoreFailure(error) {
        case .reconnect: return .reconnect(cap: reconnectCap)
        case .retry: return failures >= retriesBeforeSplit && runs.count > 1 ? .splitBatch : .retryBatch
        case .rejectData:
            if runs.count == 1 { return .failRun(runs[0], message: "the coordinator cannot record this run's progress: \(error)") }
            return runs.isEmpty ? .dropBookkeeping : .splitBatch
        case .fatal: return .stop("cannot write to PostgreSQL: \(error)")
        }
    }

    /// The `reason` label of `baton_commit_retries_total` for a commit that failed with `error` and is
    /// sent again (whole, after a back-off or a reconnect, or split): decided from the SQLSTATE class.
    static func retryReason(_ error: Error) -> String {
        if BrokerFailure(error) != nil { return "broker" }
        let state = StoreFailure.sqlState(of: error) ?? ""
        switch StoreFailure(error) {
        case .reconnect: return "connection"
        case .rejectData: return state.hasPrefix("54") ? "size" : "data"
        case .fatal: return "fatal"
        case .retry:
            switch state {
            case "40001": return "serialization"
            case "40P01": return "deadlock"
            case "55P03": return "lock"
            case "57014": return "timeout"
            default: return state.hasPrefix("53") ? "resources" : "cancelled"
            }
        }
    }

    /// The decision for an error that ended the loop's connections. `everConnected` is false until
    /// the coordinator has once connected to both services: before that, a configuration error
    /// (a wrong password, a missing vhost) is fatal, not a reason to try for ever.
    static func connection(_ error: Error, everConnected: Bool) -> FailureDecision {
        if let failure = BrokerFailure(error) {
            switch failure {
            case .reconnect, .timeout: return .reconnect(cap: reconnectCap)
            case .configuration:
                return everConnected ? .reconnect(cap: BrokerFailure.configurationBackoffCap) : .stop("cannot use RabbitMQ: \(error)")
            }
        }
        if let stop = error as? CoordinatorStop { return .stop(stop.message) }
        switch StoreFailure(error) {
        case .reconnect, .retry: return .reconnect(cap: reconnectCap)
        case .rejectData:
            // A StoreError before the first connection is the schema check ("run `baton migrate`").
            return everConnected ? .reconnect(cap: reconnectCap) : .stop("\(error)")
        case .fatal: return .stop("cannot use PostgreSQL: \(error)")
        }
    }
}
