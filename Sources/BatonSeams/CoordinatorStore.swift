import Baton
import Foundation

/// The coordinator's side of the store seam: everything the coordinator reads and writes.
/// `Store` (PostgreSQL through libpq) is the production type; the cluster simulator has an
/// in-memory twin with the same semantics (one transaction per `apply`, errors by `StoreFailure` class).
public protocol CoordinatorStore: AnyObject {
    /// Fails with a clear message if the schema is missing or out of date.
    func requireSchema() throws
    /// Starts hearing of new runs and requests.
    func listenForWork() throws
    /// What was heard since the last call, waiting up to `timeout` seconds for the first.
    func notifications(timeout: Double) throws -> [StoreNotification]
    /// Workers heard from within `seconds`.
    func liveWorkers(within seconds: Double?) throws -> [WorkerRow]
    /// The admission table as stored.
    func loadHolds() throws -> [AdmissionTable.Entry]
    /// Grants what can go at `now` among every run's waiting holds, under the lock all coordinators take
    /// for it; returns the grants (announced to every coordinator) and when the next rate token is due.
    func grantWaiting(now: Date) throws -> HoldGrants
    /// Takes back a grant made before `cutoff` and not told yet, and the rate tokens it took (its node
    /// waits in line again): told this late, its node would start too long after its tokens were
    /// counted. False if it was told meanwhile, or granted anew since.
    func revokeGrant(_ entry: AdmissionTable.Entry, grantedBefore cutoff: Date) throws -> Bool
    /// Granted holds not told to their nodes yet, of the partitions held.
    func untoldGrants() throws -> [AdmissionTable.Entry]
    /// Ids of unfinished runs, oldest first.
    func activeRunIDs() throws -> [String]
    /// What is paused (`baton.pauses`).
    func loadPauses() throws -> Pauses
    /// Cancel and retry requests not handled yet.
    func openRequests() throws -> [RunRequest]
    /// A run's scheduler state as stored, or nil if there is no such run.
    func loadRun(_ id: String) throws -> RunState?
    /// A node's stored output (nil when it has none): read when the coordinator dropped it from memory.
    func nodeOutput(run runID: String, key: String) throws -> JSON?
    /// Records a batch of decisions in one transaction; returns the batch number when it queued tasks.
    /// `confirmedBatch` is recorded for `confirmedPartitions` (those whose tasks the confirmed batches
    /// published; nil: every partition held).
    func apply(
        _ batch: [(runID: String, commands: [SchedulerCommand])], heartbeats: [WorkerHeartbeat], handledRequests: [Int],
        confirmedBatch: Int64?, confirmedPartitions: [Int]?, holds: [HoldChange], now: Date
    ) throws -> Int64?
    /// The newest cached output for `lookup` within its ttl.
    func cacheLookup(_ lookup: CacheLookup, now: Date) throws -> CacheHit?
    /// Ends a run that cannot go on, with `error`, releasing its holds.
    func failRun(_ id: String, error: String) throws
    /// Closes the connection (its session ends: `baton.owner_gone` frees its partitions).
    func close()

    /// When set, `apply` and `failRun` write only for runs of partitions held under these epochs
    /// (SQLSTATE BT001 otherwise, classed `reconnect`: nothing was written).
    var fence: PartitionFence? { get set }
    /// How many partitions the schema has.
    func partitionCount() throws -> Int
    /// The broker queue type every process uses (`baton migrate --queue-type`): "classic" or "quorum".
    func queueType() throws -> String
    /// Every partition's lease, on the database's clock.
    func partitionLeases() throws -> [PartitionLease]
    /// Takes the free ones of `parts` under new epochs; returns partition -> epoch of those taken.
    func acquirePartitions(_ parts: [Int], coordinator: String, leaseSeconds: Double) throws -> [Int: Int64]
    /// Extends the leases still held under these epochs; returns their partitions.
    func renewPartitions(_ held: [Int: Int64], coordinator: String, leaseSeconds: Double) throws -> Set<Int>
    /// Gives up the partitions held under these epochs.
    func releasePartitions(_ held: [Int: Int64], coordinator: String) throws
    /// Records that `coordinator` is live, on this session; returns the ids of every live one, sorted.
    func announce(_ coordinator: CoordinatorAnnouncement) throws -> [String]
    /// Forgets a coordinator that stopped cleanly.
    func withdraw(coordinator id: String) throws
    /// The run's submission time and `traceparent`, for its span (read only when exporting traces).
    func traceContext(of runID: String) throws -> RunTraceContext?
}

extension CoordinatorStore {
    /// A store that keeps no trace context (the simulator's): the run's span starts a trace of its own.
    public func traceContext(of runID: String) throws -> RunTraceContext? { nil }

    /// `apply` recording `confirmedBatch` for every partition held.
    public func apply(
        _ batch: [(runID: String, commands: [SchedulerCommand])], heartbeats: [WorkerHeartbeat], handledRequests: [Int],
        confirmedBatch: Int64?, holds: [HoldChange], now: Date
    ) throws -> Int64? {
        try apply(
            batch, heartbeats: heartbeats, handledRequests: handledRequests, confirmedBatch: confirmedBatch, confirmedPartitions: nil,
            holds: holds, now: now)
    }
}
