import Baton
import BatonPostgres
import BatonStore
import Foundation
import Testing

extension Integration {
    /// Pausing on real services: `baton pause` stores a pause every coordinator hears, nothing of what
    /// it names is dispatched (what runs finishes), it outlives a coordinator's restart, and `baton
    /// resume` lets the held nodes go. Its own pool (`pausing`) and procedure names, so the suites that
    /// run beside it are not paused.
    @Suite("pausing on real services", .serialized)
    @MainActor  // blocking waits here must not starve the cooperative pool the async unit tests need
    struct PauseIntegrationTests {
        static let pool = "pausing"

        /// A run of `a` then `b`, both `baton.echo` in the pool `pausing`.
        static let chain: JSON = [
            "name": "pause-chain",
            "nodes": [
                "a": ["procedure": "baton.echo", "pool": .string(pool), "input": ["v": 1]],
                "b": ["procedure": "baton.echo", "pool": .string(pool), "input": ["$from": "a"]],
            ],
        ]

        /// What the node waits for (`scheduler ->> 'waiting_for'`), nil when it waits for nothing.
        func waitingFor(_ runID: String, _ key: String) throws -> String? {
            let sql = try TestCluster.sql()
            defer { sql.close() }
            let r = try sql.query("select scheduler ->> 'waiting_for' as w from baton.nodes where run_id = $1::uuid and key = $2", [runID, key])
            return r[row: 0, column: "w"]
        }

        func events(_ runID: String, _ key: String) throws -> [String] {
            let sql = try TestCluster.sql()
            defer { sql.close() }
            let r = try sql.query("select kind from baton.events where run_id = $1::uuid and node_key = $2 order by id", [runID, key])
            return (0..<r.rowCount).map { r[row: $0, column: "kind"]! }
        }

        func pauseCount() throws -> Int {
            let sql = try TestCluster.sql()
            defer { sql.close() }
            return try sql.query("select count(*)::int as n from baton.pauses").int(0, "n") ?? -1
        }

        @Test("a paused pool holds its nodes, survives a coordinator restart, and resume lets them go in order")
        func poolPause() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            try cluster.start(["worker", "--demo", "--pools", Self.pool, "--concurrency", "2"], name: "worker")
            let store = try TestCluster.store()
            defer { store.close() }
            let paused = try TestCluster.cli(["pause", "pool", Self.pool])
            #expect(paused.status == 0, "\(paused.stderr)")
            #expect(paused.stdout.hasPrefix("pool \(Self.pool) paused: nothing new is dispatched for it"))
            let again = try TestCluster.cli(["pause", "pool", Self.pool, "--json"])
            #expect(try JSONParser.parse(again.stdout) == ["kind": "pool", "name": .string(Self.pool), "paused": true, "changed": false])
            let runID = try TestCluster.submit(Self.chain)
            try TestCluster.waitUntil(30, "a to wait for the pause") { try waitingFor(runID, "a") == "paused" }
            #expect(try TestCluster.nodes(store, runID)["a"]?.attempts == 0, "nothing was dispatched")
            let shown = try TestCluster.cli(["show", runID])
            #expect(shown.stdout.contains("waiting (paused)"), "\(shown.stdout)")
            let listed = try TestCluster.cli(["pause", "list"])
            #expect(listed.stdout.contains("pool") && listed.stdout.contains(Self.pool), "\(listed.stdout)")

            // A coordinator started anew loads the pause before the runs: a new run is held too; its
            // metrics count the pause and the nodes it holds.
            cluster.stopAll()
            let metricsPort = HTTPProbe.freePort()
            try cluster.start(["coordinator", "--metrics", "127.0.0.1:\(metricsPort)"], name: "coordinator2")
            try cluster.start(["worker", "--demo", "--pools", Self.pool, "--concurrency", "2"], name: "worker2")
            let second = try TestCluster.submit(Self.chain)
            try TestCluster.waitUntil(30, "the second run's a to wait for the pause") { try waitingFor(second, "a") == "paused" }
            #expect(try waitingFor(runID, "a") == "paused")
            try TestCluster.waitUntil(15, "the paused gauges") {
                let text = HTTPProbe.get(port: metricsPort, "/metrics")?.body ?? ""
                return HTTPProbe.sample(text, "baton_paused", #"kind="pool""#) == 1 && HTTPProbe.sample(text, "baton_paused_nodes") == 2
            }

            let resumed = try TestCluster.cli(["resume", "pool", Self.pool])
            #expect(resumed.status == 0, "\(resumed.stderr)")
            #expect(resumed.stdout == "pool \(Self.pool) resumed: its waiting nodes go out in order\n")
            #expect(try TestCluster.waitForRun(runID, store: store, seconds: 30) == "succeeded")
            #expect(try TestCluster.waitForRun(second, store: store, seconds: 30) == "succeeded")
            #expect(try events(runID, "a") == ["paused", "queued", "started", "succeeded"])
            #expect(try TestCluster.cli(["resume", "pool", Self.pool]).stdout == "pool \(Self.pool) was not paused\n")
            #expect(try pauseCount() == 0)
        }

        @Test("a paused run's running attempt finishes and its next node waits; baton runs shows it; resume ends it")
        func runPause() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            try cluster.start(["worker", "--demo", "--pools", Self.pool, "--concurrency", "2"], name: "worker")
            let store = try TestCluster.store()
            defer { store.close() }
            let runID = try TestCluster.submit([
                "name": "pause-run",
                "nodes": [
                    "slow": ["procedure": "demo.slow-add", "pool": .string(Self.pool), "input": ["values": [1, 2], "seconds": 1.5]],
                    "next": ["procedure": "baton.echo", "pool": .string(Self.pool), "input": ["x": 1], "after": ["slow"]],
                ],
            ])
            try TestCluster.waitUntil(30, "slow to start") { try TestCluster.nodes(store, runID)["slow"]?.status == "running" }
            let paused = try TestCluster.cli(["pause", "run", String(runID.prefix(8))])
            #expect(paused.status == 0, "\(paused.stderr)")
            #expect(paused.stdout.hasPrefix("run \(runID) paused"))
            let runs = try TestCluster.cli(["runs", "--limit", "50"])
            #expect(runs.stdout.split(separator: "\n").contains { $0.contains(runID) && $0.contains("running (paused)") }, "\(runs.stdout)")
            try TestCluster.waitUntil(30, "next to wait for the pause") { try waitingFor(runID, "next") == "paused" }
            #expect(try TestCluster.nodes(store, runID)["slow"]?.status == "succeeded", "the attempt running when paused finished")
            #expect(try TestCluster.cli(["resume", "run", runID]).status == 0)
            #expect(try TestCluster.waitForRun(runID, store: store, seconds: 30) == "succeeded")
            let ended = try TestCluster.cli(["pause", "run", runID])
            #expect(ended.status == 2)
            #expect(ended.stderr == "baton: run \(runID) has ended (succeeded): there is nothing to pause\n")
            #expect(try pauseCount() == 0)
        }

        @Test("a procedure's pause holds only its nodes; each refusal is one line, exit 2, and stores nothing")
        func procedurePauseAndRefusals() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            let store = try TestCluster.store()
            defer { store.close() }
            // Nobody serves the procedure: queued (not paused) it would stay queued, so `paused` proves the pause.
            #expect(try TestCluster.cli(["pause", "procedure", "pausetest.nobody"]).status == 0)
            let graph = try GraphFixtures.write([
                "name": "pause-procedure", "nodes": ["x": ["procedure": "pausetest.nobody", "pool": .string(Self.pool)]],
            ])
            let submitted = try TestCluster.cli(["submit", graph, "--allow-unknown-procedures", "--json"])
            let runID = try #require(try JSONParser.parse(submitted.stdout)["run_id"]?.stringValue, "\(submitted.stderr)")
            try TestCluster.waitUntil(30, "x to wait for the pause") { try waitingFor(runID, "x") == "paused" }
            #expect(try TestCluster.cli(["resume", "procedure", "pausetest.nobody"]).status == 0)
            try TestCluster.waitUntil(30, "x to be queued") { try TestCluster.nodes(store, runID)["x"]?.status == "queued" }
            #expect(try TestCluster.cli(["cancel", runID]).status == 0)

            let cases: [(arguments: [String], message: String)] = [
                (["pause", "queue", "x"], "baton: 'queue' is not something to pause: give procedure, pool, run or schedule"),
                (["pause", "procedure"], "baton: give the name after 'procedure'"),
                (["pause", "pool", "a b"], "baton: the pool name 'a b' has white space or control characters"),
                (["pause", "procedure", String(repeating: "p", count: 201)], "baton: the procedure name is longer than 200 bytes"),
                (["pause", "run", "00000000-0000-4000-8000-00000000dead"], "baton: no run with id 00000000-0000-4000-8000-00000000dead"),
                (["pause", "run", "zz"], "baton: 'zz' is not a run id (a UUID, or at least 4 of its first characters)"),
                (["resume", "list"], "baton: `baton resume` needs KIND NAME; `baton pause list` lists what is paused"),
                (["pause", "schedule", "no-such-schedule"], "baton: no schedule named 'no-such-schedule'"),
            ]
            for c in cases {
                let result = try TestCluster.cli(c.arguments)
                #expect(result.status == 2, "\(c.arguments): \(result.stderr)")
                #expect(result.stderr.hasPrefix(c.message), "\(c.arguments): \(result.stderr)")
                #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)")
            }
            #expect(try pauseCount() == 0)
        }

        @Test("through the API: operate pauses and resumes, read lists, a reader is refused")
        func api() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            let port = try APITests.startServer(cluster)
            let operate = try APITests.token("pause-operate", "read,operate")
            let reader = try APITests.token("pause-reader", "read")
            let paused = try CLIRemoteTests.remote(["pause", "procedure", "pausetest.api", "--json"], port: port, token: operate)
            #expect(paused.status == 0, "\(paused.stderr)")
            #expect(try JSONParser.parse(paused.stdout) == ["kind": "procedure", "name": "pausetest.api", "paused": true, "changed": true])
            let listed = try CLIRemoteTests.remote(["pause", "list", "--json"], port: port, token: reader)
            let rows = try JSONParser.parse(listed.stdout).arrayValue ?? []
            #expect(rows.contains { $0["name"] == "pausetest.api" && $0["paused_by"] == "pause-operate" }, "\(listed.stdout)")
            let denied = try CLIRemoteTests.remote(["resume", "procedure", "pausetest.api"], port: port, token: reader)
            #expect(denied.status != 0 && denied.stderr.split(separator: "\n").count == 1, "\(denied.stderr)")
            #expect(try pauseCount() == 1)
            let resumed = try CLIRemoteTests.remote(["resume", "procedure", "pausetest.api"], port: port, token: operate)
            #expect(resumed.stdout == "procedure pausetest.api resumed: its waiting nodes go out in order\n", "\(resumed.stderr)")
            let audit = try TestCluster.sql().query(
                "select count(*)::int as n from baton.audit where action in ('procedure.pause', 'procedure.resume') and target = 'pausetest.api'")
            #expect(audit.int(0, "n") == 2)
            #expect(try pauseCount() == 0)
        }
    }
}
