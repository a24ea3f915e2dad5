import Baton
import BatonAMQP
import BatonPostgres
import BatonStore
import Foundation
import Testing

extension Integration {
    /// `baton migrate --queue-type quorum` on the test broker (a single node runs quorum queues too):
    /// a database and a vhost of their own, made afresh for each test.
    @Suite("quorum queues", .serialized)
    @MainActor  // blocking waits here must not starve the cooperative pool the async unit tests need
    struct QuorumQueueTests {
        /// A fresh database and vhost named `name`; returns the environment that points `baton` at them.
        static func fresh(_ name: String) throws -> [String: String] {
            let url = try TestCluster.freshDatabase(named: name)
            let vhost = name.replacingOccurrences(of: "_", with: "-")
            try ProjectScript.run("services.sh", ["vhost", vhost, "--fresh"])
            let amqp = TestCluster.amqpURL
            let base = amqp[..<(amqp.lastIndex(of: "/") ?? amqp.endIndex)]
            return ["BATON_DATABASE_URL": url, "BATON_AMQP_URL": "\(base)/\(vhost)"]
        }

        /// The type (`classic`, `quorum`) of every queue of `vhost` whose name starts with `prefix`.
        static func queueTypes(_ environment: [String: String], prefix: String) throws -> [String: String] {
            let vhost = String(environment["BATON_AMQP_URL"]!.split(separator: "/").last!)
            let listed = try ProjectScript.run("services.sh", ["queues", vhost])
            var types: [String: String] = [:]
            for line in listed.split(separator: "\n") {
                let fields = line.split(separator: "\t").map(String.init)
                if fields.count >= 2, fields[0].hasPrefix(prefix) { types[fields[0]] = fields[1] }
            }
            return types
        }

        @Test("migrate --queue-type quorum: every durable queue is a quorum queue, recorded in the database, and a run succeeds")
        func quorumTopology() throws {
            let environment = try Self.fresh("baton_quorum_test")
            let migrated = try TestCluster.cli(["migrate", "--partitions", "4", "--queue-type", "quorum", "--json"], environment: environment)
            #expect(migrated.status == 0, "\(migrated.stderr)")
            #expect(try JSONParser.parse(migrated.stdout)["queue_type"] == "quorum", "\(migrated.stdout)")
            let store = try Store(url: environment["BATON_DATABASE_URL"]!)
            defer { store.close() }
            #expect(try store.queueType() == "quorum")

            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.start(["coordinator"], name: "coordinator", environment: environment)
            try cluster.start(["worker", "--demo", "--concurrency", "4"], name: "worker", environment: environment)
            let file = try GraphFixtures.write([
                "name": "quorum",
                "nodes": [
                    "a": ["procedure": "baton.add", "input": ["values": [1, 2]], "priority": 8],
                    "b": ["procedure": "baton.add", "input": ["values": [["$from": "a"], 10]], "priority": 4],
                    "c": ["procedure": "baton.echo", "input": ["b": ["$from": "b"]]],
                ],
            ])
            let run = try TestCluster.cli(["submit", file, "--wait", "--json"], environment: environment)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(try JSONParser.parse(run.stdout)["status"] == "succeeded", "\(run.stdout)")

            let types = try Self.queueTypes(environment, prefix: "baton.")
            #expect(types["baton.dead-letters"] == "quorum")
            #expect(types["baton.results.0"] == "quorum")
            #expect(types["baton.heartbeats"] == "quorum")
            // One queue per priority band for each procedure used.
            for queue in ["baton.tasks.default:baton.add", "baton.tasks:3.default:baton.add", "baton.tasks:7.default:baton.add"] {
                #expect(types[queue] == "quorum", "\(queue) in \(types.keys.sorted())")
            }
            #expect(types.values.allSatisfy { $0 == "quorum" }, "\(types)")
        }

        @Test("with quorum queues (no message priorities), a worker still starts higher priorities first")
        func priorityBands() throws {
            let environment = try Self.fresh("baton_quorum_bands")
            #expect(try TestCluster.cli(["migrate", "--partitions", "4", "--queue-type", "quorum"], environment: environment).status == 0)
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.start(["coordinator"], name: "coordinator", environment: environment)
            var nodes: [String: JSON] = [:]
            for i in 0..<6 {
                nodes["low-\(i)"] = ["procedure": "baton.sleep", "input": ["seconds": 0.05], "priority": 0]
                nodes["mid-\(i)"] = ["procedure": "baton.sleep", "input": ["seconds": 0.05], "priority": 5]
                nodes["high-\(i)"] = ["procedure": "baton.sleep", "input": ["seconds": 0.05], "priority": 9]
            }
            let file = try GraphFixtures.write(["name": "bands", "nodes": GraphFixtures.object(nodes)])
            let submitted = try TestCluster.cli(["submit", file, "--json"], environment: environment)
            try #require(submitted.status == 0, "\(submitted.stderr)")
            let runID = try #require(try JSONParser.parse(submitted.stdout)["run_id"]?.stringValue)
            let sql = try PGConnection(url: environment["BATON_DATABASE_URL"]!)
            defer { sql.close() }
            // Every task waits in its band's queue before a worker (one slot) starts.
            try TestCluster.waitUntil(30, "all 18 nodes queued") {
                try sql.query("select count(*) as n from baton.nodes where run_id = $1 and status = 'queued'", [runID]).int(0, "n") == 18
            }
            try cluster.start(["worker", "--concurrency", "1"], name: "worker", environment: environment)
            let store = try Store(url: environment["BATON_DATABASE_URL"]!)
            defer { store.close() }
            #expect(try TestCluster.waitForRun(runID, store: store, seconds: 60) == "succeeded")
            let order = try sql.query("select key from baton.nodes where run_id = $1 order by started_at, key", [runID]).rows.compactMap { $0[0] }
            let rank = order.map { $0.hasPrefix("high") ? 2 : $0.hasPrefix("mid") ? 1 : 0 }
            // The first task takes the free slot as it arrives, whatever its band; from then on the worker chooses
            // among what it holds, highest first.
            let inversions = zip(rank.dropFirst(), rank.dropFirst(2)).filter { $0 < $1 }.count
            #expect(inversions == 0, "start order \(order)")
            #expect(rank.dropFirst().prefix(5).allSatisfy { $0 == 2 }, "start order \(order)")
        }

        @Test("a poison task on a quorum queue is dead-lettered by the queue's own delivery count; a task held beside it succeeds")
        func poisonOnQuorum() throws {
            let environment = try Self.fresh("baton_quorum_poison")
            #expect(try TestCluster.cli(["migrate", "--partitions", "4", "--queue-type", "quorum"], environment: environment).status == 0)
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.start(["coordinator"], name: "coordinator", environment: environment)
            let restarter = TestWorkerRestarter(
                cluster: cluster, arguments: ["--concurrency", "1", "--prefetch", "1", "--delivery-limit", "3"], count: 2,
                environment: environment)
            defer { restarter.stop() }
            let store = try Store(url: environment["BATON_DATABASE_URL"]!)
            defer { store.close() }
            try TestCluster.waitUntil(30, "the test workers to announce test.crash-worker") {
                try store.servedProcedures().contains("test.crash-worker")
            }
            let file = try GraphFixtures.write([
                "name": "poison",
                "nodes": [
                    "poison": ["procedure": "test.crash-worker", "input": [:], "priority": 9],
                    "after": ["procedure": "baton.add", "input": ["values": [20, 22]], "after": ["poison"], "dependencies": "all-finished"],
                    // Held beside the poison (a lower band, so the worker starts the poison first) whenever both reach one
                    // worker: it comes back counted with it, and, never started, goes out again instead of failing.
                    "innocent": ["procedure": "baton.echo", "input": ["held": true], "priority": 0],
                ],
            ])
            let submitted = try TestCluster.cli(["submit", file, "--json"], environment: environment)
            let runID = try #require(try JSONParser.parse(submitted.stdout)["run_id"]?.stringValue, "\(submitted.stderr)")
            #expect(try TestCluster.waitForRun(runID, store: store, seconds: 90) == "failed")
            let all = try TestCluster.nodes(store, runID)
            #expect(all["poison"]?.error?.contains("dead-lettered after 3 deliveries") == true, "\(all["poison"]?.error ?? "")")
            #expect(all["after"]?.output == 42)
            let events = try store.events(ofRun: runID)
            #expect(events.contains { $0.node == "poison" && $0.kind == "dead_lettered" })
            // The innocent task succeeds, or, when it shared every round with the poison (the two workers' timing
            // decides; about one run in ten here), it used up its 3 dispatches after never starting and says so:
            // never is it failed as the poison after its first dead letter.
            let rescued = events.filter { $0.node == "innocent" && $0.kind == "dead_lettered_unstarted" }.count
            if all["innocent"]?.status == "succeeded" {
                #expect(all["innocent"]?.output == ["held": true])
                #expect(!events.contains { $0.node == "innocent" && $0.kind == "dead_lettered" })
            } else {
                #expect(all["innocent"]?.error?.contains("never started") == true, "\(all["innocent"]?.error ?? "")")
                #expect(rescued == 3, "\(rescued) dispatches after dead letters")
            }
        }

        @Test("a database and a broker whose queues disagree on the type: one line at start-up, nothing changed")
        func mismatchIsOneLine() throws {
            let environment = try Self.fresh("baton_quorum_mismatch")
            #expect(try TestCluster.cli(["migrate", "--partitions", "4", "--queue-type", "quorum"], environment: environment).status == 0)
            // A second database, classic, pointed at the same vhost: its migrate refuses the broker's queues
            // (one line, nothing recorded); with --no-broker it migrates the database alone.
            var classic = environment
            classic["BATON_DATABASE_URL"] = try TestCluster.freshDatabase(named: "baton_classic_mismatch")
            let refused = try TestCluster.cli(["migrate"], environment: classic)
            #expect(refused.status == 1)
            #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
            #expect(refused.stderr.contains("is not a classic queue"), "\(refused.stderr)")
            #expect(try TestCluster.cli(["migrate", "--no-broker"], environment: classic).status == 0)

            let coordinator = try TestCluster.cli(["coordinator"], environment: classic)
            #expect(coordinator.status == 1)
            #expect(coordinator.stderr.split(separator: "\n").count == 1, "\(coordinator.stderr)")
            #expect(
                coordinator.stderr.contains("queue 'baton.dead-letters' on the broker is not a classic queue"), "\(coordinator.stderr)")

            let changed = try TestCluster.cli(["migrate", "--queue-type", "classic"], environment: environment)
            #expect(changed.status == 1)
            #expect(changed.stderr.split(separator: "\n").count == 1, "\(changed.stderr)")
            let store = try Store(url: environment["BATON_DATABASE_URL"]!)
            defer { store.close() }
            #expect(try store.queueType() == "quorum")
            #expect(try Self.queueTypes(environment, prefix: "baton.dead-letters") == ["baton.dead-letters": "quorum"])

            let bad = try TestCluster.cli(["migrate", "--queue-type", "fast"], environment: environment)
            #expect(bad.status == 2)
            #expect(bad.stderr.contains("--queue-type: unknown queue type 'fast' (use classic or quorum)"), "\(bad.stderr)")
        }
    }
}
