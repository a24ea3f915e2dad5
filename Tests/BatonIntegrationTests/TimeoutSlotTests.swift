import Baton
import BatonStore
import Foundation
import Testing

extension Integration {
    /// A timeout on a procedure that ignores cancellation: reported at once, but the slot is busy
    /// until the procedure really returns.
    @Suite("a timed-out procedure that ignores cancellation", .serialized)
    @MainActor  // blocking waits here must not starve the cooperative pool the async unit tests need
    struct TimeoutSlotTests {
        @Test("its timeout is reported at once, and a 1-slot worker starts nothing else until the procedure returns")
        func slotStaysBusyUntilTheProcedureReturns() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            try cluster.start(["--concurrency", "1"], name: "stubborn-worker", executable: TestWorkerRestarter.executablePath)
            let store = try TestCluster.store()
            defer { store.close() }
            try TestCluster.waitUntil(30, "the test worker to announce test.stubborn-sleep") {
                try store.servedProcedures().contains("test.stubborn-sleep")
            }
            let seconds = 4.0
            let runID = try TestCluster.submit([
                "name": "stubborn-timeout",
                "nodes": [
                    "stubborn": ["procedure": "test.stubborn-sleep", "input": ["seconds": .double(seconds)], "timeout": "300ms"],
                    // Queued as soon as the timeout is recorded; the worker's only slot is still busy then.
                    "next": ["procedure": "baton.echo", "input": ["ok": true], "after": ["stubborn"], "dependencies": "all-finished"],
                ],
            ])
            #expect(try TestCluster.waitForRun(runID, store: store, seconds: 30) == "failed")
            let nodes = try TestCluster.nodes(store, runID)
            #expect(nodes["stubborn"]?.error == "timed out after 300ms")
            #expect(nodes["next"]?.status == "succeeded")

            let sql = try TestCluster.sql()
            defer { sql.close() }
            let times = try sql.query(
                """
                select extract(epoch from s.finished_at - s.started_at)::text as reported,
                       extract(epoch from n.started_at - s.started_at)::text as next
                from baton.nodes s, baton.nodes n
                where s.run_id = $1::uuid and s.key = 'stubborn' and n.run_id = $1::uuid and n.key = 'next'
                """, [runID])
            let reported = try #require(times[row: 0, column: "reported"].flatMap(Double.init))
            let next = try #require(times[row: 0, column: "next"].flatMap(Double.init))
            #expect(reported < seconds / 2, "the timeout was reported \(reported) s after the start, not at once")
            #expect(next >= seconds - 0.5, "'next' started \(next) s after the stubborn procedure, while it still held the only slot")
        }
    }
}
