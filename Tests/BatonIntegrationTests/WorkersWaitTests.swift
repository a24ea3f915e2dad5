import Baton
import BatonPostgres
import Foundation
import Testing

extension Integration {
    /// `baton workers --wait-for`: a script starts workers, waits until they have announced
    /// themselves, and only then submits.
    @Suite("baton workers --wait-for", .serialized)
    @MainActor  // blocking waits here must not starve the cooperative pool the async unit tests need
    struct WorkersWaitTests {
        /// Procedure names no other test's workers serve.
        static func procedures(_ count: Int) -> [String] {
            let tag = UUID().uuidString.prefix(8).lowercased()
            return (1...count).map { "test.wait-\(tag)-\($0)" }
        }

        /// A heartbeat row, as a worker writes it, for a worker serving `procedures`.
        static func announce(_ id: String, serving procedures: [String], on sql: PGConnection) throws {
            _ = try sql.execute(
                """
                insert into baton.workers (id, host, pid, pools, procedures, slots, started_at, last_seen_at, heartbeat_interval)
                values ($1, 'test', 1, '{default}', $2::text[], 1, now(), now(), 60)
                """, [id, PGArray.literal(procedures)])
        }

        @Test("it times out with one line naming the procedures no live worker serves")
        func timesOutNamingTheMissingProcedures() throws {
            _ = TestCluster()
            let sql = try TestCluster.sql()
            defer { sql.close() }
            let names = Self.procedures(3)
            let id = "wait-\(UUID().uuidString.prefix(8))"
            try Self.announce(id, serving: [names[1]], on: sql)
            defer { _ = try? sql.execute("delete from baton.workers where id = $1", [id]) }

            let started = ContinuousClock.now
            let result = try TestCluster.cli(["workers", "--wait-for", names.joined(separator: ","), "--timeout", "0.5"])
            let elapsed = ContinuousClock.now - started
            #expect(result.status == 3)
            #expect(result.stderr == "baton: no live worker serves \(names[0]), \(names[2]) after waiting 0.5 s\n")
            #expect(result.stdout.isEmpty)
            #expect(elapsed >= .milliseconds(500))
        }

        @Test("it returns, listing the workers, once a heartbeat announces every procedure")
        func succeedsOnceEveryProcedureIsServed() throws {
            let cluster = TestCluster()
            let sql = try TestCluster.sql()
            defer { sql.close() }
            let names = Self.procedures(2)
            let id = "wait-\(UUID().uuidString.prefix(8))"
            defer { _ = try? sql.execute("delete from baton.workers where id = $1", [id]) }
            let waiting = try cluster.start(
                ["workers", "--wait-for", names.joined(separator: ",") + ",baton.delay", "--timeout", "30", "--json"], name: "wait")
            // Nothing serves them yet: it waits (baton.delay needs no worker).
            let clock = ContinuousClock()
            let settle = clock.now.advanced(by: .milliseconds(300))
            while clock.now < settle && waiting.isRunning { usleep(20_000) }
            #expect(waiting.isRunning, "exited early: \(cluster.log("wait"))")

            try Self.announce(id, serving: names + ["baton.echo"], on: sql)
            try TestCluster.waitUntil(10, "baton workers --wait-for to return") { !waiting.isRunning }
            #expect(waiting.terminationStatus == 0, "\(cluster.log("wait"))")
            let listed = try JSONParser.parse(cluster.log("wait")).arrayValue ?? []
            #expect(listed.contains { $0["id"] == .string(id) })
        }

        @Test func aTimeoutNeedsWaitFor() throws {
            let result = try TestCluster.cli(["workers", "--timeout", "5"])
            #expect(result.status == 2)
            #expect(result.stderr == "baton: --timeout only makes sense with --wait-for\n")
        }
    }
}
