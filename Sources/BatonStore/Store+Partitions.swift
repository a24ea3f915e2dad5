import Baton
import BatonPostgres
import Foundation

/// Partitions, their leases and the fence that checks them. Every time is the database's
/// (`now()`), never the host's, so a coordinator whose clock is off still keeps its leases right.
extension Store {
    /// How many partitions the schema has (fixed by the first `baton migrate`).
    public func partitionCount() throws -> Int {
        try connection.query("select count(*) as n from baton.partitions").int(0, "n") ?? 0
    }

    /// Every partition's lease, by partition.
    public func partitionLeases() throws -> [PartitionLease] {
        let r = try connection.query(
            """
            select partition, owner, epoch, extract(epoch from lease_until - now())::float8 as left,
                   owner is not null and baton.owner_gone(owner) as gone
            from baton.partitions order by partition
            """)
        return (0..<r.rowCount).map { Self.lease(r, $0) }
    }

    /// Takes those of `parts` that are free (released, their lease ran out, their owner's session
    /// ended, or held by `coordinator` itself before it reconnected) for `coordinator`, each under a
    /// new epoch, for `leaseSeconds`; returns what it took, partition -> epoch. Each one taken gets a
    /// new publication floor: confirms of batches from before the take do not count for it.
    public func acquirePartitions(_ parts: [Int], coordinator: String, leaseSeconds: Double) throws -> [Int: Int64] {
        guard !parts.isEmpty else { return [:] }
        let r = try connection.query(
            """
            with taken as (
                update baton.partitions set owner = $2, epoch = epoch + 1, lease_until = now() + make_interval(secs => $3::float8),
                    changed_at = now()
                where partition = any($1::int[])
                  and (owner is null or owner = $2 or lease_until is null or lease_until <= now() or baton.owner_gone(owner))
                returning partition, epoch
            ), floors as (
                update baton.publications u set floor = nextval('baton.dispatch_batches') from taken where u.id = taken.partition
            )
            select partition, epoch from taken
            """, [PGArray.literal(parts.map(String.init)), coordinator, String(leaseSeconds)])
        return Dictionary(uniqueKeysWithValues: (0..<r.rowCount).map { (r.int($0, "partition") ?? -1, Int64(r.int($0, "epoch") ?? 0)) })
    }

    /// Extends the leases `coordinator` still holds under the epochs given; returns those partitions.
    /// One missing from the answer was taken over (or released): the coordinator no longer owns it.
    public func renewPartitions(_ held: [Int: Int64], coordinator: String, leaseSeconds: Double) throws -> Set<Int> {
        guard !held.isEmpty else { return [] }
        let parts = held.keys.sorted()
        let r = try connection.query(
            """
            update baton.partitions p set lease_until = now() + make_interval(secs => $4::float8)
            from unnest($1::int[], $2::bigint[]) as h(partition, epoch)
            where p.partition = h.partition and p.epoch = h.epoch and p.owner = $3
            returning p.partition
            """,
            [PGArray.literal(parts.map(String.init)), PGArray.literal(parts.map { String(held[$0]!) }), coordinator, String(leaseSeconds)])
        return Set((0..<r.rowCount).compactMap { r.int($0, "partition") })
    }

    /// Gives up the partitions `coordinator` holds under the epochs given (a clean hand-over: the next
    /// owner need not wait for the lease to run out).
    public func releasePartitions(_ held: [Int: Int64], coordinator: String) throws {
        guard !held.isEmpty else { return }
        let parts = held.keys.sorted()
        try connection.execute(
            """
            update baton.partitions p set owner = null, lease_until = null, changed_at = now()
            from unnest($1::int[], $2::bigint[]) as h(partition, epoch)
            where p.partition = h.partition and p.epoch = h.epoch and p.owner = $3
            """, [PGArray.literal(parts.map(String.init)), PGArray.literal(parts.map { String(held[$0]!) }), coordinator])
    }

    /// The fence of a statement writing for `runIDs` (nil without a fence, or for no runs): a query
    /// of `baton.require_epochs`, whose three values `parameter` adds to the statement (returning
    /// each one's placeholder). Throws at once, as the database would, for a partition not held.
    func fenceSQL(for runIDs: some Sequence<String>, parameter: (String) -> String) throws -> String? {
        guard let fence else { return nil }
        let claims = try fence.claims(for: runIDs)
        guard !claims.isEmpty else { return nil }
        let coordinator = parameter(fence.coordinator)
        let parts = parameter(PGArray.literal(claims.map { String($0.partition) }))
        let epochs = parameter(PGArray.literal(claims.map { String($0.epoch) }))
        return "select baton.require_epochs(\(coordinator), \(parts)::int[], \(epochs)::bigint[]) as held"
    }

    private static func lease(_ r: PGResult, _ i: Int) -> PartitionLease {
        PartitionLease(
            partition: r.int(i, "partition") ?? 0, owner: r[row: i, column: "owner"], epoch: Int64(r.int(i, "epoch") ?? 0),
            secondsLeft: r[row: i, column: "left"].flatMap(Double.init), ownerGone: r.bool(i, "gone") ?? false)
    }
}
