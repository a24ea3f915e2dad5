import Baton
import BatonPostgres
import Foundation
import Testing

@testable import BatonStore

extension Integration {
    /// The PostgreSQL half of the error table, on the real database: a test-only trigger raises a
    /// chosen SQLSTATE (`RAISE ... USING ERRCODE`) on the coordinator's writes, a few times and then
    /// never (a sequence counts, and a sequence is not rolled back with the failed statement).
    @Suite("database faults", .serialized)
    @MainActor
    struct DatabaseFaultTests {
        /// A chain of three echo nodes.
        static func chain(_ name: String) -> JSON {
            [
                "name": .string(name),
                "nodes": [
                    "a": ["procedure": "baton.echo", "input": ["v": 1]],
                    "b": ["procedure": "baton.echo", "input": ["from": ["$from": "a"]]],
                    "c": ["procedure": "baton.echo", "input": ["from": ["$from": "b"]]],
                ],
            ]
        }

        /// Installs a trigger named `name` on `table` that raises `code` the first `times` times it fires
        /// (`row`: fire for each row matching this condition, else once per statement), counted by
        /// a sequence of its own, and returns what removes it.
        static func inject(
            _ code: String, times: Int, on table: String = "baton.nodes", row when: String? = nil, name: String = "baton_fault"
        ) throws -> () -> Void {
            let sql = try TestCluster.sql()
            defer { sql.close() }
            try sql.execute("drop sequence if exists public.\(name)_seq")
            try sql.execute("create sequence public.\(name)_seq")
            // The code, count and names are the test's own constants, not user data.
            try sql.execute(
                """
                create or replace function public.\(name)() returns trigger language plpgsql as $$
                begin
                    if nextval('public.\(name)_seq') <= \(times) then
                        raise exception 'injected fault %', '\(code)' using errcode = '\(code)';
                    end if;
                    return new;
                end $$
                """)
            try sql.execute("drop trigger if exists \(name) on \(table)")
            let each = when.map { "for each row when (\($0))" } ?? "for each statement"
            try sql.execute("create trigger \(name) before update on \(table) \(each) execute function public.\(name)()")
            return {
                guard let sql = try? TestCluster.sql() else { return }
                _ = try? sql.execute("drop trigger if exists \(name) on \(table)")
                sql.close()
            }
        }

        static func faultsRaised(_ name: String = "baton_fault") throws -> Int {
            let sql = try TestCluster.sql()
            defer { sql.close() }
            return try sql.query("select last_value from public.\(name)_seq").int(0, "last_value") ?? 0
        }

        @Test(
            "a passing error on a commit is retried: every run succeeds and none fails",
            arguments: ["40001", "40P01", "53100", "57014", "55P03", "08006"])
        func passingErrorsAreRetried(_ code: String) throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            let remove = try Self.inject(code, times: 3)
            defer { remove() }
            let coordinator = try cluster.startCoordinator()
            try cluster.startWorker()
            let store = try TestCluster.store()
            defer { store.close() }
            let first = try TestCluster.submit(Self.chain("fault-\(code)-1"))
            let second = try TestCluster.submit(Self.chain("fault-\(code)-2"))
            #expect(try TestCluster.waitForRun(first, store: store) == "succeeded", "log: \(cluster.log("coordinator"))")
            #expect(try TestCluster.waitForRun(second, store: store) == "succeeded")
            #expect(try Self.faultsRaised() > 3, "the trigger raised its faults and then let writes through")
            #expect(coordinator.isRunning, "a passing error does not stop the coordinator")
            let log = cluster.log("coordinator")
            if code.hasPrefix("08") {
                #expect(log.contains("reconnecting"), "log: \(log)")
            } else {
                #expect(log.contains("failed with SQLSTATE \(code), retrying"), "log: \(log)")
                #expect(!log.contains("reconnecting"), "a passing error is retried in place, without reconnecting: \(log)")
            }
        }

        @Test("a data error fails only the run whose data it is, with the error text; the run beside it succeeds")
        func aDataErrorFailsOneRun() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            // Both runs wait, stored, so the coordinator starts them in one batch.
            let bad = try TestCluster.submit(Self.chain("bad-data"))
            let good = try TestCluster.submit(Self.chain("good-data"))
            let remove = try Self.inject("22023", times: 1_000_000, row: "new.run_id = '\(bad)'::uuid")
            defer { remove() }
            // The run's failure itself cannot be written the first 3 times: it is tried again, not forgotten.
            let removeRuns = try Self.inject(
                "22000", times: 3, on: "baton.runs", row: "new.id = '\(bad)'::uuid and new.status = 'failed'", name: "baton_fault_runs")
            defer { removeRuns() }
            let sql = try TestCluster.sql()
            defer { sql.close() }
            try cluster.startCoordinator()
            try cluster.startWorker()
            let store = try TestCluster.store()
            defer { store.close() }
            #expect(try TestCluster.waitForRun(good, store: store) == "succeeded")
            #expect(try TestCluster.waitForRun(bad, store: store, seconds: 30) == "failed", "log: \(cluster.log("coordinator"))")
            let error = try sql.query("select error from baton.runs where id = $1::uuid", [bad])[row: 0, column: "error"] ?? ""
            #expect(error.contains("injected fault 22023") && error.contains("(22023)"), "error: \(error)")
            #expect(try Self.faultsRaised("baton_fault_runs") > 3, "writing the failure was refused, then tried again")
        }

        @Test("the coordinator's session limits its statements and idle transactions; a limit in the URL wins")
        func theCoordinatorsSessionHasTimeouts() throws {
            let store = try Store(url: TestCluster.databaseURL, timeouts: .coordinator)
            defer { store.close() }
            #expect(try store.connection.query("show statement_timeout")[row: 0, column: 0] == "1min")
            #expect(try store.connection.query("show idle_in_transaction_session_timeout")[row: 0, column: 0] == "1min")
            let separator = TestCluster.databaseURL.contains("?") ? "&" : "?"
            let own = try Store(url: TestCluster.databaseURL + separator + "options=-c%20statement_timeout%3D5s", timeouts: .coordinator)
            defer { own.close() }
            #expect(try own.connection.query("show statement_timeout")[row: 0, column: 0] == "5s")
            #expect(try own.connection.query("show idle_in_transaction_session_timeout")[row: 0, column: 0] == "1min")
        }

        @Test("an operator's LOCK TABLE baton.nodes held for 10 s delays runs but fails none")
        func aLockHeldByAnotherSessionDelaysButFailsNothing() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            let coordinator = try cluster.startCoordinator()
            try cluster.startWorker()
            let store = try TestCluster.store()
            defer { store.close() }
            let sleepy: JSON = [
                "name": "locked",
                "nodes": [
                    "a": ["procedure": "baton.sleep", "input": ["seconds": 1]],
                    "b": ["procedure": "baton.sleep", "input": ["seconds": 1], "after": ["a"]],
                    "c": ["procedure": "baton.echo", "input": ["from": ["$from": "b"]]],
                ],
            ]
            let runs = try (0..<3).map { _ in try TestCluster.submit(sleepy) }
            let locker = try TestCluster.sql()
            defer { locker.close() }
            try locker.execute("begin")
            try locker.execute("lock table baton.nodes in access exclusive mode")
            let locked = ContinuousClock.now
            // Wait until the coordinator is waiting on the lock, then hold it 10 s in all.
            try TestCluster.waitUntil(10, "a coordinator statement to wait on the lock") {
                let sql = try TestCluster.sql()
                defer { sql.close() }
                return try sql.query(
                    "select count(*) as n from pg_locks where not granted and relation = 'baton.nodes'::regclass"
                ).int(0, "n") ?? 0 > 0
            }
            while ContinuousClock.now - locked < .seconds(10) { Thread.sleep(forTimeInterval: 0.2) }
            try locker.execute("commit")
            for run in runs {
                #expect(try TestCluster.waitForRun(run, store: store, seconds: 60) == "succeeded", "log: \(cluster.log("coordinator"))")
                #expect(try TestCluster.nodes(store, run).values.allSatisfy { $0.attempts == 1 })
            }
            #expect(coordinator.isRunning)
        }

        @Test("any other database error stops the coordinator with one line; a new one finishes the run")
        func anUnknownErrorStopsTheCoordinator() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            let remove = try Self.inject("42501", times: 1_000_000)
            let coordinator = try cluster.startCoordinator()
            try cluster.startWorker()
            let run = try TestCluster.submit(Self.chain("fatal"))
            try TestCluster.waitUntil(30, "the coordinator to stop") { !coordinator.isRunning }
            #expect(coordinator.terminationStatus == 1)
            let lines = cluster.log("coordinator").split(separator: "\n").filter { $0.hasPrefix("baton: ") }
            #expect(
                lines.count == 1 && lines[0].contains("coordinator stopped: cannot write to PostgreSQL") && lines[0].contains("42501"), "\(lines)")
            remove()
            try cluster.start(["coordinator"], name: "coordinator-2")
            let store = try TestCluster.store()
            defer { store.close() }
            #expect(try TestCluster.waitForRun(run, store: store) == "succeeded", "nothing the first coordinator took is lost")
        }
    }
}
