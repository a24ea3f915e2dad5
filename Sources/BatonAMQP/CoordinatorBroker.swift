import Foundation

/// The coordinator's side of the messaging seam: what it publishes (tasks, cancel signals) and what
/// it receives (reports, heartbeats, dead letters), with confirms and acks. Queue names, channels,
/// delivery tags and headers stay behind it. `AMQPCoordinatorBroker` is the production type over
/// librabbitmq; the cluster simulator has an in-memory twin.
///
/// Publish sequence numbers count from 1 after each `connect()`; `confirmed()` reports the highest
/// number through which the broker confirmed every publish.
public protocol CoordinatorBroker: AnyObject {
    /// Connects, declares the topology and starts consuming (at most `prefetch` unacked reports).
    func connect(prefetch: Int) throws
    /// Closes everything; unacked deliveries go back to their queues. Safe to call more than once.
    func close()
    /// Publishes a task to the queue of its pool and procedure: persistent, confirmed. `queuedAt`
    /// stamps when it was published (for workers' queued-to-started metric). Returns its sequence number.
    func publishTask(pool: String, procedure: String, body: [UInt8], priority: UInt8, queuedAt: Date?) throws -> UInt64
    /// Publishes a cancel signal to every worker; returns its sequence number.
    func publishCancel(body: [UInt8]) throws -> UInt64
    /// The sequence number through which every publish is confirmed, without waiting.
    func confirmed() throws -> UInt64
    /// Waits until every publish so far is confirmed (a nack or a timeout throws).
    func waitForConfirms() throws
    /// Services an idle connection (broker heartbeats are answered only inside a call).
    func keepAlive() throws
    /// The next message, waiting up to `timeout` seconds (also woken early by confirms when `confirmsDue`).
    func receive(timeout: Double, confirmsDue: Bool) throws -> CoordinatorInbound?
    /// Acks every report received up to and including `receipt`.
    func ackReports(through receipt: BrokerReceipt) throws
    /// Acks every dead letter received up to and including `receipt`.
    func ackDeadLetters(through receipt: BrokerReceipt) throws
    /// Rejects a report that cannot be read, to the dead-letter queue.
    func rejectReport(_ receipt: BrokerReceipt) throws
    /// Tasks waiting in the queue of `procedure` in `pool`.
    func taskQueueDepth(pool: String, procedure: String) throws -> Int
}
