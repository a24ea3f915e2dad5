import Baton
import BatonPostgres
import BatonStore
import Foundation
import Testing

extension Integration {
    /// What the benchmark and the chaos tool read and clean up through the store, not with SQL of their own.
    @Suite("store checks and clean-up", .serialized)
    @MainActor  // blocking waits here must not starve the cooperative pool the async unit tests need
    struct StoreChecksTests {
        @Test("deleteRuns(namePrefix:) deletes the runs whose name starts with the prefix, taken literally")
        func deleteRunsByPrefix() throws {
            _ = TestCluster()  // no coordinator: the runs stay pending
            let store = try TestCluster.store()
            defer { store.close() }
            let prefix = "del_\(UUID().uuidString.prefix(8))-"
            func submit(_ name: String) throws -> String {
                try store.submit(try GraphDecoder().decode(["name": .string(name), "nodes": ["a": ["procedure": "baton.echo"]]])).id
            }
            let doomed = [try submit(prefix + "1"), try submit(prefix + "2")]
            // `_` is no wildcard: `delX…` does not start with `del_…`.
            let kept = [try submit("delX" + prefix.dropFirst(4) + "1"), try submit("x" + prefix)]
            #expect(try store.deleteRuns(namePrefix: prefix) == 2)
            for id in doomed { #expect(try store.runStatus(id) == nil) }
            for id in kept { #expect(try store.runStatus(id) != nil) }
            let sql = try TestCluster.sql()
            defer { sql.close() }
            #expect(try sql.query("select count(*) as n from baton.nodes where run_id = $1::uuid", [doomed[0]]).int(0, "n") == 0)
        }

        @Test("workerSlots(ofPIDs:) reads the slots from heartbeat rows; rowsWritten counts baton's rows")
        func workerSlotsAndRowsWritten() throws {
            _ = TestCluster()
            let store = try TestCluster.store()
            defer { store.close() }
            let sql = try TestCluster.sql()
            defer { sql.close() }
            let pid = Int.random(in: 3_000_000...4_000_000)  // above Linux's pid_max: no real worker's
            let id = "slots-\(UUID().uuidString.prefix(8))"
            _ = try sql.execute(
                """
                insert into baton.workers (id, host, pid, pools, procedures, slots, started_at, last_seen_at)
                values ($1, 'test', $2::int, '{default}', '{baton.echo}', 7, now(), now())
                """, [id, String(pid)])
            defer { _ = try? sql.execute("delete from baton.workers where id = $1", [id]) }
            #expect(try store.workerSlots(ofPIDs: [pid, pid + 1]) == [7])
            #expect(try store.rowsWritten() > 0)
        }
    }
}
