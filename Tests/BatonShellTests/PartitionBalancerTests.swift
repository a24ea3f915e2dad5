import BatonCoordinator
import BatonStore
import Testing

/// The balancer's decisions, played out round by round on a lease table held as values.
@Suite("PartitionBalancer")
struct PartitionBalancerTests {
    /// A lease table: owners by partition (nil: free).
    struct Table {
        var owners: [String?]
        var leases: [PartitionLease] {
            owners.enumerated().map { PartitionLease(partition: $0.offset, owner: $0.element, epoch: 0, secondsLeft: $0.element == nil ? nil : 10) }
        }
        func held(by id: String) -> Int { owners.filter { $0 == id }.count }

        /// One round: each live coordinator in turn reads the table and carries out its plan
        /// (taking only what is still free, as the store's conditional update does).
        mutating func round(_ live: [String]) {
            for id in live {
                let plan = PartitionBalancer.plan(for: id, coordinators: live, leases: leases)
                for p in plan.release { owners[p] = nil }
                for p in plan.acquire where owners[p] == nil { owners[p] = id }
            }
        }
    }

    @Test func sharesAddUpToThePartitions() {
        for n in 1...9 {
            let ids = (0..<n).map { "c\($0)" }
            #expect(ids.map { PartitionBalancer.share(of: $0, among: ids, partitions: 64) }.reduce(0, +) == 64)
        }
        #expect(PartitionBalancer.share(of: "new", among: ["a", "b"], partitions: 64) == 21, "a coordinator not listed yet counts itself")
        #expect(PartitionBalancer.share(of: "a", among: ["a", "b", "c"], partitions: 2) == 1)
        #expect(PartitionBalancer.share(of: "c", among: ["a", "b", "c"], partitions: 2) == 0)
    }

    @Test func aLoneCoordinatorTakesEverythingInOneRound() {
        var table = Table(owners: Array(repeating: nil, count: 64))
        table.round(["a"])
        #expect(table.held(by: "a") == 64)
    }

    /// A second and a third coordinator get their share within a few rounds; the first hands over.
    @Test func newcomersGetTheirShareAndNothingIsHeldTwice() {
        var table = Table(owners: Array(repeating: "a", count: 64))
        var rounds = 0
        let live = ["a", "b", "c"]
        while live.contains(where: { table.held(by: $0) != PartitionBalancer.share(of: $0, among: live, partitions: 64) }) && rounds < 5 {
            table.round(live)
            rounds += 1
        }
        #expect(rounds <= 2, "converged in \(rounds) rounds")
        #expect(live.map { table.held(by: $0) } == [22, 21, 21])
        #expect(table.owners.allSatisfy { $0 != nil })
        // Stable once balanced: another round changes nothing.
        let before = table.owners
        table.round(live)
        #expect(table.owners == before)
    }

    /// A dead coordinator's leases run out; the others take them.
    @Test func theSurvivorsTakeADeadCoordinatorsPartitions() {
        var table = Table(owners: (0..<64).map { ["a", "b", "c"][$0 % 3] })
        for p in table.owners.indices where table.owners[p] == "c" { table.owners[p] = nil }  // c's leases ran out
        table.round(["a", "b"])
        table.round(["a", "b"])
        #expect(table.held(by: "a") == 32 && table.held(by: "b") == 32)
    }

    @Test func aCoordinatorAboveItsShareReleasesItsHighestPartitions() {
        let leases = (0..<8).map { PartitionLease(partition: $0, owner: "a", epoch: 1, secondsLeft: 5) }
        #expect(PartitionBalancer.plan(for: "a", coordinators: ["a", "b"], leases: leases) == PartitionPlan(release: [4, 5, 6, 7]))
        #expect(PartitionBalancer.plan(for: "b", coordinators: ["a", "b"], leases: leases) == PartitionPlan())
        let expired = leases.map { PartitionLease(partition: $0.partition, owner: "a", epoch: 1, secondsLeft: -1) }
        #expect(PartitionBalancer.plan(for: "b", coordinators: ["a", "b"], leases: expired).acquire.count == 4, "an expired lease is free")
    }
}
