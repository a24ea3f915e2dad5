import Baton
import BatonAMQP
import BatonStore
import Foundation
import Testing

extension Integration {
    /// The coordinator and worker shells tried as users would: routing, safe defaults,
    /// error classes, restarts and worker liveness.
    @Suite("shells on real services", .serialized)
    @MainActor  // blocking waits here must not starve the cooperative pool the async unit tests need
    struct ShellTests {
        @Test("a worker receives only tasks for procedures it serves: a demo node waits for a demo worker, it is not failed")
        func routingByProcedure() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            try cluster.start(["worker", "--heartbeat", "0.5"], name: "plain")  // built-in procedures only
            let store = try TestCluster.store()
            defer { store.close() }
            // Workers of earlier tests drop out within a few heartbeats; then only the plain worker serves anything.
            try TestCluster.waitUntil(30, "only the plain worker to be live") {
                try store.servedProcedures() == ["baton.add", "baton.echo", "baton.fail", "baton.sleep"]
            }
            let graph: JSON = [
                "name": "routing",
                "nodes": [
                    "sum": ["procedure": "baton.add", "input": ["values": [1, 2]]],
                    "product": ["procedure": "demo.multiply", "input": ["values": [["$from": "sum"], 7]]],
                ],
            ]
            let submitted = try TestCluster.cli(["submit", try GraphFixtures.write(graph), "--json"])
            #expect(submitted.status == 0, "\(submitted.stderr)")
            // submit says which procedure no live worker serves, on stderr and in --json.
            #expect(
                submitted.stderr.contains("warning: no live worker serves procedure 'demo.multiply' in pool 'default' (node product)"),
                "\(submitted.stderr)")
            #expect(!submitted.stderr.contains("baton.add"))
            let reply = try JSONParser.parse(submitted.stdout)
            #expect(reply["unserved"] == [["procedure": "demo.multiply", "pool": "default", "nodes": ["product"]]])
            let runID = try #require(reply["run_id"]?.stringValue)
            try TestCluster.waitUntil(30, "sum to succeed") { try TestCluster.nodes(store, runID)["sum"]?.status == "succeeded" }
            try TestCluster.waitUntil(10, "product to be queued") { try TestCluster.nodes(store, runID)["product"]?.status == "queued" }
            #expect(try store.unservedNodes(ofRun: runID).map(\.key) == ["product"])
            // submit --wait shows the waiting node (bounded by --timeout: exit 3 while it still waits).
            let waiting = try TestCluster.cli(["submit", try GraphFixtures.write(graph), "--wait", "--timeout", "3"])
            #expect(waiting.status == 3)
            #expect(waiting.stderr.contains("waiting for a worker: product (demo.multiply in pool default)"), "\(waiting.stderr)")
            // Nothing takes it while only the plain worker runs (a wrong worker would fail it at once).
            let deadline = Date().addingTimeInterval(1.5)
            while Date() < deadline { #expect(try TestCluster.nodes(store, runID)["product"]?.status == "queued"); usleep(100_000) }
            try cluster.start(["worker", "--demo"], name: "demo")
            #expect(try TestCluster.waitForRun(runID, store: store, seconds: 30) == "succeeded")
            #expect(try TestCluster.nodes(store, runID)["product"]?.output == 21)
        }

        @Test("a plain baton worker serves no demo procedure; --demo adds them")
        func plainWorkerServesOnlyBuiltIns() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            let store = try TestCluster.store()
            defer { store.close() }
            try cluster.start(["worker", "--heartbeat", "0.5"], name: "plain")
            // Workers of earlier tests drop out within a few heartbeats; then only the plain worker is left.
            try TestCluster.waitUntil(30, "baton procedures to list exactly the built-in procedures") {
                let plain = try TestCluster.cli(["procedures", "--json"])
                return try JSONParser.parse(plain.stdout).arrayValue?.compactMap { $0["name"]?.stringValue }
                    == ["baton.add", "baton.echo", "baton.fail", "baton.sleep"]
            }
            try cluster.start(["worker", "--demo", "--heartbeat", "0.5"], name: "demo")
            try TestCluster.waitUntil(30, "demo procedures to be served") {
                try TestCluster.cli(["procedures"]).stdout.contains("demo.count-words")
            }
            #expect(!(try TestCluster.cli(["procedures"]).stdout.contains("crash")))
        }

        @Test("a run whose stored state cannot be read or written fails alone with a clear error; other runs go on, nothing loops")
        func corruptedRowsFailOnlyTheirRun() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            let store = try TestCluster.store()
            defer { store.close() }
            // Two runs stored while no coordinator runs, then corrupted.
            let badStatus = try TestCluster.submit(["name": "bad-status", "nodes": ["a": ["procedure": "baton.echo", "input": [:]]]])
            let badPlan = try TestCluster.submit(["name": "bad-plan", "nodes": ["a": ["procedure": "baton.echo", "input": [:]]]])
            let sql = try TestCluster.sql()
            _ = try sql.execute("update baton.nodes set status = 'bogus' where run_id = $1::uuid", [badStatus])
            _ = try sql.execute(#"update baton.runs set plan = '{"v": 1, "name": 3}' where id = $1::uuid"#, [badPlan])
            // A row the database refuses to write: a constraint that one run's output breaks.
            _ = try sql.execute(
                """
                alter table baton.nodes add constraint test_no_poison_output check (output is null or output::text not like '%poison-output%')
                """)
            defer { _ = try? sql.execute("alter table baton.nodes drop constraint test_no_poison_output") }
            try cluster.startCoordinator()
            try cluster.startWorker()
            #expect(try TestCluster.waitForRun(badStatus, store: store, seconds: 30) == "failed")
            #expect(try TestCluster.waitForRun(badPlan, store: store, seconds: 30) == "failed")
            #expect(try store.run(badStatus)?.error?.contains("node 'a' has unknown status 'bogus'") == true)
            #expect(try store.run(badPlan)?.error?.contains("the stored graph cannot be read") == true)

            let unwritable = try TestCluster.submit([
                "name": "unwritable",
                "nodes": [
                    "a": ["procedure": "baton.echo", "input": ["x": "poison-output"]]
                ],
            ])
            let fine = try TestCluster.submit(["name": "fine", "nodes": ["a": ["procedure": "baton.add", "input": ["values": [2, 3]]]]])
            #expect(try TestCluster.waitForRun(unwritable, store: store, seconds: 30) == "failed")
            #expect(try store.run(unwritable)?.error?.contains("cannot record this run's progress") == true)
            #expect(try TestCluster.waitForRun(fine, store: store, seconds: 30) == "succeeded")
            #expect(try store.events(ofRun: badStatus).last?.kind == "run_failed")
            // One error line per broken run: no reconnect, no reload loop.
            let log = cluster.log("coordinator")
            #expect(!log.contains("reconnecting"), "\(log)")
            #expect(log.components(separatedBy: "run \(badStatus) failed").count == 2)
        }

        @Test("restarting the coordinator three times does not multiply the backlog of tasks no worker takes")
        func restartsDoNotRepublishConfirmedTasks() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            let store = try TestCluster.store()
            defer { store.close() }
            let amqp = try AMQPConnection(url: TestCluster.amqpURL)
            defer { amqp.close() }
            let queue = try BatonTopology.declareTaskQueue(pool: "unserved", procedure: "baton.echo", on: amqp)
            _ = try amqp.purgeQueue(name: queue)
            var nodes: [(key: String, value: JSON)] = []
            for i in 0..<300 { nodes.append(("n\(i)", ["procedure": "baton.echo", "input": ["i": .int(Int64(i))], "pool": "unserved"])) }
            let runID = try TestCluster.submit(["name": "backlog", "nodes": .object(JSONObject(nodes))])
            for round in 1...3 {
                let coordinator = try cluster.start(["coordinator"], name: "coordinator-\(round)")
                try TestCluster.waitUntil(30, "coordinator \(round) to resume the run") {
                    cluster.log("coordinator-\(round)").contains("; 1 unfinished run(s)")
                }
                try TestCluster.waitUntil(30, "300 tasks queued and confirmed (round \(round))") {
                    try TestCluster.sql().query(
                        """
                        select count(*) as n from baton.nodes n where run_id = $1::uuid and status = 'queued'
                          and dispatch_batch <= (select confirmed_through from baton.publications p
                                                 where p.id = baton.partition_of(n.run_id, (select count(*) from baton.partitions)::int))
                        """, [runID]
                    ).int(0, "n") == 300
                }
                coordinator.terminate()
                coordinator.waitUntilExit()
                #expect(coordinator.terminationStatus == 0)
            }
            #expect(try amqp.declareQueue(name: queue, passive: true).messageCount == 300)
            _ = try store.request(.cancel, runID: runID)
            try cluster.startCoordinator()
            #expect(try TestCluster.waitForRun(runID, store: store, seconds: 30) == "cancelled")
            _ = try amqp.purgeQueue(name: queue)
        }

        @Test("a worker that stops leaves baton workers at once; one killed with SIGKILL within a few heartbeats")
        func deadWorkersLeaveTheList() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            let store = try TestCluster.store()
            defer { store.close() }
            let graceful = try cluster.start(["worker", "--heartbeat", "0.5"], name: "graceful")
            let killed = try cluster.start(["worker", "--heartbeat", "0.5"], name: "killed")
            func pids() throws -> Set<Int32> { Set(try store.liveWorkers().map { Int32($0.pid) }) }
            try TestCluster.waitUntil(30, "both workers listed") {
                try pids().isSuperset(of: [graceful.processIdentifier, killed.processIdentifier])
            }
            graceful.terminate()
            graceful.waitUntilExit()
            try TestCluster.waitUntil(5, "the stopped worker to leave the list") { try !pids().contains(graceful.processIdentifier) }
            kill(killed.processIdentifier, SIGKILL)
            killed.waitUntilExit()
            let killedAt = Date()
            try TestCluster.waitUntil(10, "the killed worker to leave the list") { try !pids().contains(killed.processIdentifier) }
            #expect(Date().timeIntervalSince(killedAt) < 4, "three heartbeats of 0.5 s and a second")
            let listed = try JSONParser.parse(try TestCluster.cli(["workers", "--json"]).stdout).arrayValue ?? []
            #expect(!listed.contains { $0["pid"]?.intValue == Int(killed.processIdentifier) })
            #expect(!listed.contains { $0["pid"]?.intValue == Int(graceful.processIdentifier) })
        }

        @Test("a database whose schema is behind this baton is refused with a clear error, not half used")
        func schemaBehindIsRefused() throws {
            let sql = try TestCluster.sql()
            let latest = try #require(try sql.query("select max(version) as v from baton.schema_migrations").int(0, "v"))
            _ = try sql.execute("delete from baton.schema_migrations where version = $1::int", [String(latest)])
            defer { _ = try? sql.execute("insert into baton.schema_migrations (version) values ($1::int)", [String(latest)]) }
            // Versions may have gaps: the one before the latest is whatever is highest now.
            let previous = try #require(try sql.query("select max(version) as v from baton.schema_migrations").int(0, "v"))
            let runs = try TestCluster.cli(["runs"])
            #expect(runs.status == 1)
            #expect(
                runs.stderr == "baton: the database's Baton schema is at version \(previous), this baton needs \(latest): run `baton migrate`\n")
        }

        @Test("a database that lacks an earlier migration (versions with a gap) is refused, naming it")
        func schemaWithAHoleIsRefused() throws {
            let sql = try TestCluster.sql()
            let first = try #require(try sql.query("select min(version) as v from baton.schema_migrations").int(0, "v"))
            _ = try sql.execute("delete from baton.schema_migrations where version = $1::int", [String(first)])
            defer { _ = try? sql.execute("insert into baton.schema_migrations (version) values ($1::int)", [String(first)]) }
            let runs = try TestCluster.cli(["runs"])
            #expect(runs.status == 1)
            #expect(runs.stderr == "baton: the database's Baton schema lacks migration \(first): run `baton migrate`\n")
        }
    }
}
