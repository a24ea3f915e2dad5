import Baton
import BatonPostgres
import Foundation

/// Baton's tables in PostgreSQL: runs, nodes, edges, events and workers.
/// One `Store` owns one connection, which nothing outside the store touches; use it from one
/// thread at a time.
public final class Store: @unchecked Sendable {
    let connection: PGConnection
    /// When set, every `apply` and `failRun` checks in its own statement that this coordinator still
    /// holds the partitions of the runs it writes for, under these epochs (see `PartitionFence`).
    public var fence: PartitionFence?
    /// The `submitted_at` of runs this store loaded or wrote for (their rows' partition key, as text),
    /// so a commit names the partition of every row it writes; a run leaves it when it ends.
    var submittedAt: [String: String] = [:]
    /// Channel on which a NOTIFY announces each new run (payload: the run id).
    public static let runsChannel = "baton_runs"

    /// Connects to `url`; with `timeouts`, the session also sets its statement and idle-in-transaction limits.
    public init(url: String, timeouts: SessionTimeouts? = nil) throws {
        connection = try PGConnection(url: url)
        for statement in timeouts?.statements(urlOptions: connection.option("options")) ?? [] {
            try connection.execute(statement)
        }
        try connection.execute("set time zone 'UTC'")
        // Baton's queries are short; the planner's JIT compiling them cost more than they take on a big
        // history (docs/performance.md, "A year of history").
        try connection.execute("set jit = off")
        try connection.execute("set client_min_messages = warning")
    }

    public func close() { connection.close() }

    /// Creates or upgrades the schema; safe to run again and from several processes at once.
    /// Returns the versions it applied.
    @discardableResult
    public func migrate(partitions: Int? = nil, queueType: String? = nil, partitionBy: String? = nil) throws -> [Int] {
        try migrate(partitions: partitions, through: nil, queueType: queueType, partitionBy: partitionBy)
    }

    /// `migrate(partitions:)` that stops after migration `through` (for tests of upgrading a schema
    /// from before a migration).
    func migrate(partitions: Int?, through last: Int?, queueType: String? = nil, partitionBy: String? = nil) throws -> [Int] {
        if let problem = partitions.flatMap(RunPartition.countProblem) { throw StoreError(problem) }
        return try connection.transaction { c in
            // Serialises concurrent migrations; released at commit.
            try c.execute("select pg_advisory_xact_lock(727274)")
            // Read by migration 11, which creates the partitions (for this transaction only).
            try c.execute("select set_config('baton.partitions', $1, true)", [partitions.map(String.init) ?? ""])
            try c.execute("create schema if not exists baton")
            try c.execute(
                """
                create table if not exists baton.schema_migrations (
                    version int primary key, applied_at timestamptz not null default now())
                """)
            let done = Set(try c.query("select version from baton.schema_migrations").rowsInts(column: "version"))
            var applied: [Int] = []
            for migration in Schema.migrations where !done.contains(migration.version) && migration.version <= last ?? .max {
                for statement in migration.statements { try c.execute(statement) }
                try c.execute("insert into baton.schema_migrations (version) values ($1::int)", [String(migration.version)])
                applied.append(migration.version)
            }
            if let last, last < 11 { return applied }  // before baton.partitions
            let count = try c.query("select count(*) as n from baton.partitions").int(0, "n") ?? 0
            if let partitions, partitions != count {
                throw StoreError(
                    "the schema has \(count) partitions, fixed when it was created; --partitions \(partitions) cannot change them")
            }
            if let queueType, last ?? .max >= 13 {
                try c.execute(
                    """
                    insert into baton.settings (name, value) values ('queue_type', $1) on conflict (name)
                    do update set value = excluded.value, changed_at = now() where settings.value <> excluded.value
                    """, [queueType])
            }
            if let partitionBy, last ?? .max >= 15 {
                try c.execute("update baton.settings set value = $1, changed_at = now() where name = 'partition_by' and value <> $1", [partitionBy])
            }
            if last ?? .max >= 15 {
                // This period's partition and the next two, so the first submit finds them.
                try c.execute(Store.ensurePartitionsSQL)
            }
            return applied
        }
    }

    /// The broker queue type every process uses (`baton migrate --queue-type`): "classic" or "quorum".
    public func queueType() throws -> String { try setting("queue_type", otherwise: "classic") }

    /// A value of `baton.settings`, or `otherwise` when it has no row.
    func setting(_ name: String, otherwise: String) throws -> String {
        let r = try connection.query("select value from baton.settings where name = $1", [name])
        return r.rowCount == 0 ? otherwise : r[row: 0, column: "value"] ?? otherwise
    }

    /// Fails with a clear message if `baton migrate` has not been run.
    public func requireSchema() throws {
        let r = try connection.query("select to_regclass('baton.runs') is not null as ok")
        if r.bool(0, "ok") != true { throw StoreError("the database has no Baton schema: run `baton migrate` first") }
        // By the list, not the highest number: versions may have gaps, and a later one may land before an earlier.
        let latest = Schema.migrations.map(\.version).max() ?? 0
        let applied = Set(try connection.query("select version from baton.schema_migrations").rowsInts(column: "version"))
        let missing = Schema.migrations.map(\.version).filter { !applied.contains($0) }
        guard !missing.isEmpty else { return }
        let at = applied.max() ?? 0
        if at < latest {
            throw StoreError("the database's Baton schema is at version \(at), this baton needs \(latest): run `baton migrate`")
        }
        let list = missing.map(String.init).joined(separator: ", ")
        throw StoreError("the database's Baton schema lacks migration\(missing.count == 1 ? "" : "s") \(list): run `baton migrate`")
    }
}

extension Store {
    /// Wakes this connection for new runs and new requests (`notifications(timeout:)` reads them).
    public func listenForWork() throws {
        try connection.listen(Store.runsChannel)
        try connection.listen(Store.requestsChannel)
        try connection.listen(Store.grantsChannel)
        try connection.listen(Store.pausesChannel)
    }

    /// What LISTEN brought since the last call, waiting up to `timeout` seconds for the first.
    public func notifications(timeout: Double) throws -> [StoreNotification] {
        try connection.waitForNotifications(timeout: timeout).map { note in
            switch note.channel {
            case Store.runsChannel: .newRun(note.payload)
            case Store.grantsChannel: .grants
            case Store.pausesChannel: .pauses
            default: .newRequest(runID: note.payload)
            }
        }
    }

    /// Drops schema `baton` with everything in it: for test and benchmark set-ups only.
    public func dropSchema() throws { try connection.execute("drop schema if exists baton cascade") }

    /// Whether an error means the database connection is gone (reconnect) rather than a
    /// problem with what was asked (fail what it concerns).
    public static func isConnectionLost(_ error: Error) -> Bool {
        (error as? PostgresError)?.isConnectionLost ?? false
    }
}

extension PGResult {
    func rowsInts(column: String) -> [Int] { (0..<rowCount).compactMap { int($0, column) } }
}
