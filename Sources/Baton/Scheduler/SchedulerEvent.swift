import Foundation

/// Something that happened to a run, fed into `RunState.handle(_:at:random:)`.
public enum SchedulerEvent: Sendable {
    /// Start the run, or resume it after a coordinator restart: dispatches what is ready and
    /// publishes again queued tasks the broker may not have (not `publishedAttempt`).
    case start
    /// A worker began an attempt.
    case started(key: String, attempt: Int, worker: String, at: Date?)
    /// A worker reported how an attempt ended.
    case result(NodeResult)
    /// Time passed: fires due timers (retry back-off, repeat waits, delays) and timeouts.
    case tick
    /// The broker dead-lettered an attempt's task (it was delivered too often without a result,
    /// which is what a task that kills its worker looks like): the node fails, with `reason`,
    /// unless the attempt never started (it was only held beside such a task): then it goes out
    /// again, a bounded number of times (`RunState+DeadLetters`).
    case deadLettered(key: String, attempt: Int, reason: String)
    /// A worker stopped heartbeating for longer than its lease: what it was running is sent out again.
    case workerLost(worker: String)
    /// Cancel the run: pending and waiting nodes at once, running ones are signalled.
    case cancel(reason: String)
    /// Run a finished run again: its failed and cancelled nodes, or `from` and everything downstream.
    case retry(from: String?)
    /// A running procedure reported progress (0...1) or wrote a log line.
    case progress(key: String, attempt: Int, fraction: Double, message: String?)
    case log(key: String, attempt: Int, message: String)
    /// The node's `.acquire` was granted: it is queued now.
    case admitted(key: String)
    /// The node's cache lookup found an output: it succeeds with it without running.
    case cached(key: String, hit: CacheHit)
    /// A signal for a signal node, sent at `at` (`baton signal`): the node succeeds with `value` if it
    /// waits for one, else the value is kept until it does (`RunState+Signals`).
    case signal(key: String, value: JSON, at: Date)
}
