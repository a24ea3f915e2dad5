import BatonPostgres

/// The history's time partitions (docs/schema.md, "Partitions"): `baton.runs` by `submitted_at`, and
/// `baton.nodes`, `baton.edges` and `baton.events` by their run's, one partition per month or day
/// (`baton migrate --partition-by`), listed in `baton.history_partitions`.
extension Store {
    /// Creates the partition for now and the two periods after it where they are missing (the
    /// coordinator does this ahead; `submit` does it when it finds none). Safe from several processes.
    /// Creating one locks the parent tables for a moment; it waits at most 5 s for them (SQLSTATE 55P03 then).
    public func ensureHistoryPartitions() throws {
        try connection.transaction { c in
            try c.execute("set local lock_timeout = '5s'")
            try c.execute(Self.ensurePartitionsSQL)
        }
    }

    /// Creates the partitions of this period and the next two where missing.
    static let ensurePartitionsSQL = """
        select baton.ensure_history_partition(now() + n * (
            select ('1 ' || value)::interval from baton.settings where name = 'partition_by'))
        from generate_series(0, 2) as n
        """

    /// The history's partitions, oldest first.
    public func historyPartitions() throws -> [HistoryPartition] {
        let r = try connection.query(
            """
            select suffix, extract(epoch from from_at)::float8 as from_at, extract(epoch from to_at)::float8 as to_at
            from baton.history_partitions order by from_at
            """)
        return (0..<r.rowCount).map { row in
            HistoryPartition(
                suffix: r[row: row, column: "suffix"]!, from: r[row: row, column: "from_at"].flatMap(Double.init) ?? 0,
                to: r[row: row, column: "to_at"].flatMap(Double.init) ?? 0)
        }
    }

    /// How the history is partitioned for new periods: "month" or "day".
    public func partitionUnit() throws -> String { try setting("partition_by", otherwise: "month") }
}
