import Baton
import BatonStore
import Foundation

/// One session with a `MemoryStore`: the coordinator's `CoordinatorStore`, as a `Store` (one
/// PostgreSQL connection) is in production. Notifications reach it once it listens; a coordinator
/// that announced on it counts as gone once it is closed or dropped.
public final class MemoryStoreConnection: CoordinatorStore, @unchecked Sendable {
    /// The database this session belongs to.
    public let store: MemoryStore
    /// Counts up from 1 in the order connections were made.
    public let id: Int
    /// False once closed or dropped: every later call fails with a connection error.
    public private(set) var isOpen = true
    /// Why the session ended, for the error later calls see.
    private var ending = ""
    /// Notifications not read yet.
    var inbox: [StoreNotification] = []
    public var fence: PartitionFence?
    /// Whether the last call failed with a fault injected (`failNext`, `faultHook`) rather than for what it sent.
    private var injectedFailure = false

    init(store: MemoryStore, id: Int) {
        self.store = store
        self.id = id
    }

    /// Loses the session, as a network failure or a killed backend does: every later call fails with a connection error (SQLSTATE 08006).
    public func dropConnection() {
        guard isOpen else { return }
        isOpen = false
        ending = "server closed the connection unexpectedly"
        if !store.severed.contains(id) { store.endSession(self) }
    }

    public func close() {
        guard isOpen else { return }
        isOpen = false
        ending = "connection is closed"
        if !store.severed.contains(id) { store.endSession(self) }  // cut off, the database does not hear of it
    }

    /// Runs `body` as call `operation` of this session: fails if the session ended or a fault is due.
    private func call<T>(_ operation: MemoryStore.Operation, writes: Bool = false, _ body: () throws -> T) throws -> T {
        guard isOpen else {
            throw DatabaseError.connection(ending, sqlState: ending == "connection is closed" ? "08003" : "08006")
        }
        if store.severed.contains(id) {
            isOpen = false
            ending = "could not receive data from server: Connection timed out"
            throw DatabaseError.connection(ending, sqlState: "08006")
        }
        injectedFailure = false
        guard let fault = store.takeFault(operation, connection: id) else { return try body() }
        injectedFailure = true
        if fault.afterCommit && writes { _ = try body() }
        if fault.failure == .reconnect { dropConnection() }
        throw fault.error
    }

    public func requireSchema() throws { try call(.requireSchema) {} }

    public func listenForWork() throws { try call(.listenForWork) { store.listeners[id] = self } }

    /// What was heard since the last call; never waits (the simulator's time is virtual).
    public func notifications(timeout: Double) throws -> [StoreNotification] {
        try call(.notifications) {
            defer { inbox = [] }
            return inbox
        }
    }

    public func liveWorkers(within seconds: Double?) throws -> [WorkerRow] {
        try call(.liveWorkers) { try store.liveWorkers(within: seconds) }
    }

    public func loadHolds() throws -> [AdmissionTable.Entry] { try call(.loadHolds) { store.holds } }

    public func grantWaiting(now: Date) throws -> HoldGrants { try call(.grantWaiting, writes: true) { store.grantWaiting(now: now) } }

    public func revokeGrant(_ entry: AdmissionTable.Entry, grantedBefore cutoff: Date) throws -> Bool {
        try call(.grantWaiting, writes: true) { store.revokeGrant(entry, grantedBefore: cutoff) }
    }

    public func untoldGrants() throws -> [AdmissionTable.Entry] { try call(.loadHolds) { store.untoldGrants(fence: fence) } }

    public func activeRunIDs() throws -> [String] { try call(.activeRunIDs) { store.activeRunIDs(fence: fence) } }

    public func loadPauses() throws -> Pauses { try call(.loadHolds) { Pauses(store.tables.pauses.keys) } }

    public func openRequests() throws -> [RunRequest] { try call(.openRequests) { store.openRequests(fence: fence) } }

    public func loadRun(_ id: String) throws -> RunState? { try call(.loadRun) { try store.loadRun(id) } }

    public func apply(
        _ batch: [(runID: String, commands: [SchedulerCommand])], heartbeats: [WorkerHeartbeat], handledRequests: [Int],
        confirmedBatch: Int64?, confirmedPartitions: [Int]?, holds: [HoldChange], now: Date
    ) throws -> Int64? {
        do {
            return try call(.apply, writes: true) {
                try store.checkFence(fence, runIDs: PartitionFence.runs(of: batch, holds: holds))
                return try store.apply(
                    batch, heartbeats: heartbeats, handledRequests: handledRequests, confirmedBatch: confirmedBatch,
                    confirmedPartitions: confirmedPartitions, holds: holds, now: now, fence: fence)
            }
        } catch {
            // Only what the batch itself caused counts: injected failures are passing ones (or one-off data
            // errors) by design, and stack up while no commit goes in (a store cut), so a batch may rightly
            // meet many in a row, each after a back-off.
            if !injectedFailure { store.failedToApply(batch) }
            throw error
        }
    }

    public func nodeOutput(run runID: String, key: String) throws -> JSON? {
        try call(.loadRun) {
            store.outputsReadBack += 1
            return store.nodes(ofRun: runID).first { $0.key == key }?.output
        }
    }

    public func cacheLookup(_ lookup: CacheLookup, now: Date) throws -> CacheHit? {
        try call(.cacheLookup) { try store.cacheLookup(lookup, now: now) }
    }

    public func failRun(_ id: String, error: String) throws {
        try call(.failRun, writes: true) {
            try store.checkFence(fence, runIDs: [id])
            try store.failRun(id, error: error)
        }
    }

    public func partitionCount() throws -> Int { try call(.partitions) { store.tables.partitions.count } }
    /// What `baton migrate --queue-type` recorded (`MemoryStore.queueType`).
    public func queueType() throws -> String { store.queueType.rawValue }

    public func partitionLeases() throws -> [PartitionLease] { try call(.partitions) { store.partitionLeases() } }

    public func acquirePartitions(_ parts: [Int], coordinator: String, leaseSeconds: Double) throws -> [Int: Int64] {
        try call(.partitions, writes: true) { store.acquirePartitions(parts, coordinator: coordinator, leaseSeconds: leaseSeconds) }
    }

    public func renewPartitions(_ held: [Int: Int64], coordinator: String, leaseSeconds: Double) throws -> Set<Int> {
        try call(.partitions, writes: true) { store.renewPartitions(held, coordinator: coordinator, leaseSeconds: leaseSeconds) }
    }

    public func releasePartitions(_ held: [Int: Int64], coordinator: String) throws {
        try call(.partitions, writes: true) { store.releasePartitions(held, coordinator: coordinator) }
    }

    public func announce(_ coordinator: CoordinatorAnnouncement) throws -> [String] {
        try call(.partitions, writes: true) { store.announce(coordinator, session: id) }
    }

    public func withdraw(coordinator id: String) throws {
        try call(.partitions, writes: true) { store.withdraw(coordinator: id) }
    }
}
