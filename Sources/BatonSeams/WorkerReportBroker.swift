/// A worker's publishing side of the messaging seam: reports and heartbeats to the coordinator,
/// confirmed. `AMQPWorkerReportBroker` is the production type; the simulator has an in-memory twin.
/// Publish sequence numbers count from 1 after each `connect()`. Used by one thread at a time.
public protocol WorkerReportBroker: AnyObject {
    func connect() throws
    /// Closes the connection. Safe to call more than once.
    func close()
    /// Publishes a report (persistent) for the owner of `partition` (the task's; nil for a task
    /// without one); returns its sequence number.
    func publishReport(_ body: [UInt8], partition: Int?) throws -> UInt64
    /// Publishes a heartbeat (transient); returns its sequence number.
    func publishHeartbeat(_ body: [UInt8]) throws -> UInt64
    /// The sequence number through which every publish is confirmed, waiting up to `timeout`
    /// seconds for more (ended early by `wakeup`).
    func confirmed(timeout: Double, wakeup: (any BrokerWakeup)?) throws -> UInt64
    /// Waits until every publish so far is confirmed.
    func waitForConfirms() throws
    /// Why the broker blocks this connection's publishes (`connection.blocked`), or nil.
    var blockedReason: String? { get }
}

extension WorkerReportBroker {
    /// A twin that never blocks.
    public var blockedReason: String? { nil }
}
