import Baton
import BatonAMQP
import BatonStore
import Foundation

/// An in-memory twin of Baton's PostgreSQL database, for the cluster simulator: the tables `Store`
/// writes, with the same semantics, shared by any number of connections (`connect()`), each a
/// `CoordinatorStore` as a coordinator's `Store` is.
///
/// Deterministic: its clock is set by the simulator, run ids count up, every list it returns is
/// sorted, and failures come only when asked for (`failNext`, `faultHook`, `dropConnections`).
/// Not thread-safe: use it from one thread at a time.
public final class MemoryStore: @unchecked Sendable {
    /// The database's clock (`now()` in PostgreSQL): worker heartbeats, handled requests, failed
    /// runs and submissions are stamped with it, and `liveWorkers` measures from it.
    public var clock: () -> Date
    /// Called before every call of every connection with the operation and the connection's id; a
    /// failure it returns fails that call, as `failNext` does (the simulator's seeded faults).
    public var faultHook: ((Operation, Int) -> StoreFailure?)?

    var tables = MemoryTables()
    /// Each `grantWaiting` pass that granted a share claim: the holds as they were, and what it
    /// granted in order (`InvariantChecker.checkShares`).
    public internal(set) var sharePasses: [(before: [AdmissionTable.Entry], granted: [Int64])] = []
    var faults: [MemoryStoreFault] = []
    /// How many calls failed with a fault `failNext` scheduled, so far.
    public internal(set) var faultsMet = 0
    /// Connections that listen for notifications, by id.
    var listeners: [Int: MemoryStoreConnection] = [:]
    /// Open connections, by id.
    var connections: [Int: MemoryStoreConnection] = [:]
    /// Sessions cut off from the network (`sever`): their calls fail, but they stay open here.
    var severed: Set<Int> = []
    // Sequences: like PostgreSQL's, they are not rolled back with a failed transaction.
    var runsSubmitted = 0
    var nextEventID: Int64 = 1
    var nextRequestID = 1
    var nextCacheID: Int64 = 1
    var nextBatch: Int64 = 1
    var nextHoldSeq: Int64 = 1
    var nextWebhookID: Int64 = 1
    var nextDeliveryID: Int64 = 1
    /// Every claim of a delivery, in order (`claimDeliveries`), for the simulator's checks.
    public internal(set) var deliveryClaims: [MemoryDeliveryClaim] = []
    /// Partition -> epoch -> the coordinator that wrote under it (for the simulator's check).
    var epochWriters: [Int: [Int64: String]] = [:]
    /// Two coordinators that wrote for one partition under one epoch, one line each (must stay empty).
    public internal(set) var epochConflicts: [String] = []
    /// Writes the fence refused (an owner that had lost a partition tried to write for it).
    public internal(set) var fencedWrites = 0
    /// Partitions that were taken by a coordinator other than their last owner.
    public internal(set) var ownerChanges = 0
    var connectionsMade = 0
    /// The queue type `baton migrate --queue-type` recorded, which coordinators declare and mark.
    public var queueType = QueueType.classic
    /// The largest statement `apply` takes, in `SchedulerCommand.estimatedBytes` (PostgreSQL's is 1 GB,
    /// `PGConnection.maxMessageBytes`): a larger one fails with 54000, as `PGConnection` refuses it.
    /// The simulator lowers it, with the coordinator's `commitBytes`, so that large batches are cut.
    public var maxStatementBytes = Int.max
    /// How often each batch (by its content) failed to apply, and the most any one did: a batch sent
    /// again unchanged without end shows here (`InvariantChecker`).
    var failedBatches: [String: Int] = [:]
    public internal(set) var mostFailuresOfOneBatch = 0
    /// Outputs read back one at a time (`nodeOutput`: a coordinator had dropped them from memory).
    public internal(set) var outputsReadBack = 0

    /// A database with no runs whose clock is `clock` (by default, one fixed instant).
    public init(clock: @escaping () -> Date = { Date(timeIntervalSince1970: 1_800_000_000) }) {
        self.clock = clock
    }

    /// A new connection (a new session): it does not lead or listen until asked. Fails as
    /// `failNext(.connect, …)` or `faultHook` say (a database that is down or refuses connections).
    public func connect() throws -> MemoryStoreConnection {
        if let fault = takeFault(.connect, connection: connectionsMade + 1) { throw fault.error }
        connectionsMade += 1
        let connection = MemoryStoreConnection(store: self, id: connectionsMade)
        connections[connection.id] = connection
        return connection
    }

    /// The database's clock, to the microsecond, as `timestamptz` keeps it.
    var now: Date { MemoryTimestamp.rounded(clock()) }

    /// Ends `connection`'s session: its notifications go (and a coordinator that announced on it is gone).
    func endSession(_ connection: MemoryStoreConnection) {
        listeners[connection.id] = nil
        connections[connection.id] = nil
        connection.inbox = []
    }

    /// Sends `note` to every listening connection (PostgreSQL's NOTIFY, at commit).
    func notify(_ note: StoreNotification) {
        for id in listeners.keys.sorted() { listeners[id]!.inbox.append(note) }
    }

    /// Throws a data error of PostgreSQL's for a run id that is not a UUID (`$1::uuid`).
    static func requireUUID(_ id: String) throws {
        guard UUID(uuidString: id) == nil else { return }
        throw DatabaseError.statement("invalid input syntax for type uuid: \"\(id)\"", sqlState: "22P02")
    }

    /// The error PostgreSQL gives for a row of `table` naming a run that does not exist.
    static func missingRun(_ id: String, table: String) -> any Error {
        DatabaseError.statement(
            "insert or update on table \"\(table)\" violates foreign key constraint \(table)_run_id_fkey", sqlState: "23503",
            detail: "Key (run_id)=(\(id)) is not present in table \"runs\".")
    }
}
