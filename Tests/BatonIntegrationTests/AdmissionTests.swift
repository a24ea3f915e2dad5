import Baton
import BatonPostgres
import BatonStore
import Foundation
import Testing

extension Integration {
    /// Mutex, concurrency and cache across runs, on real services.
    @Suite("mutex, concurrency and cache on real services", .serialized)
    @MainActor  // blocking waits here must not starve the cooperative pool the async unit tests need
    struct AdmissionTests {
        /// Event kinds after which a node no longer holds what it was admitted with.
        static let leaving: Set<String> = [
            "awaiting_admission", "succeeded", "failed", "cancelled", "retrying", "repeating", "timed_out", "lease_expired", "dead_lettered",
        ]

        /// Every span from a node's `queued` event to the next event that ends its hold, per (run, node),
        /// from `baton.events` (seconds since the epoch).
        static func holdSpans(_ runIDs: [String], nodes keys: Set<String>) throws -> [(node: String, from: Double, to: Double)] {
            let sql = try TestCluster.sql()
            var spans: [(String, Double, Double)] = []
            for runID in runIDs {
                let r = try sql.query(
                    """
                    select node_key, kind, extract(epoch from at)::float8 as t from baton.events
                    where run_id = $1::uuid and node_key is not null order by id
                    """, [runID])
                var open: [String: Double] = [:]
                for i in 0..<r.rowCount {
                    let key = r[row: i, column: "node_key"]!, kind = r[row: i, column: "kind"]!, t = Double(r[row: i, column: "t"]!)!
                    guard keys.contains(key) else { continue }
                    if kind == "queued" {
                        open[key] = t
                    } else if Self.leaving.contains(kind), let from = open.removeValue(forKey: key) {
                        spans.append(("\(runID.prefix(8))/\(key)", from, t))
                    }
                }
                #expect(open.isEmpty, "run \(runID) ended with nodes still holding: \(open.keys.sorted())")
            }
            return spans
        }

        /// The most spans that overlap at any instant (a span ending when another starts does not overlap it).
        static func mostAtOnce(_ spans: [(node: String, from: Double, to: Double)]) -> Int {
            var points: [(at: Double, delta: Int)] = []
            for span in spans { points += [(span.from, 1), (span.to, -1)] }
            points.sort { a, b in a.at < b.at || (a.at == b.at && a.delta < b.delta) }
            var now = 0, most = 0
            for (_, delta) in points {
                now += delta
                most = max(most, now)
            }
            return most
        }

        static func sleeper(_ seconds: Double, mutex: [String]) -> JSON {
            ["procedure": "baton.sleep", "input": ["seconds": .double(seconds)], "mutex": .array(mutex.map(JSON.string))]
        }

        static func holdRows(_ runIDs: [String]) throws -> Int {
            let list = runIDs.map { "'\($0)'" }.joined(separator: ",")
            return try TestCluster.sql().query("select count(*)::int as n from baton.holds where run_id::text in (\(list))").int(0, "n") ?? -1
        }

        @Test("the mutex, concurrency and cache examples run on a cluster")
        func examplesRun() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            try cluster.startWorker(concurrency: 8)
            let store = try TestCluster.store()
            defer { store.close() }
            func example(_ name: String) throws -> JSON { try GraphFixtures.example(name) }
            let mutex = try TestCluster.submit(try example("mutex.json"))
            let concurrency = try TestCluster.submit(try example("concurrency.json"))
            let cache = try TestCluster.submit(try example("cache.json"))
            for run in [mutex, concurrency, cache] { #expect(try TestCluster.waitForRun(run, store: store, seconds: 60) == "succeeded") }
            #expect(Store.overlaps(try store.holdSpans(ofRun: mutex, nodes: ["migrate-a", "migrate-b"])) == 0)
            #expect(Store.overlaps(try store.holdSpans(ofRun: concurrency, nodes: ["import-a1", "import-a2"])) == 0)
            let cached = try TestCluster.nodes(store, cache)
            #expect(["first", "twin", "later"].map { cached[$0]?.output } == [6, 6, 6])
            #expect(["first", "twin", "later"].compactMap { cached[$0]?.attempts }.reduce(0, +) == 1, "one of the three ran")
        }

        @Test("two runs sharing a mutex never have two holders queued or running at once")
        func mutexAcrossRuns() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            try cluster.startWorker(concurrency: 4)
            let category = "m-\(UUID().uuidString.prefix(8).lowercased())"
            let graph: JSON = [
                "name": "mutex",
                "nodes": [
                    "a": Self.sleeper(0.4, mutex: [category]), "b": Self.sleeper(0.4, mutex: ["x", category]), "free": ["procedure": "baton.echo"],
                ],
            ]
            let runs = [try TestCluster.submit(graph), try TestCluster.submit(graph)]
            let store = try TestCluster.store()
            defer { store.close() }
            for run in runs { #expect(try TestCluster.waitForRun(run, store: store, seconds: 60) == "succeeded") }
            let spans = try Self.holdSpans(runs, nodes: ["a", "b"])
            #expect(spans.count == 4)
            #expect(Self.mostAtOnce(spans) == 1, "\(spans)")
            #expect(try Self.holdRows(runs) == 0, "every hold was released")
        }

        @Test("under a worker SIGKILL and a coordinator restart, no two holders of a mutex overlap")
        func mutexSurvivesKills() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            let coordinator = try cluster.start(["coordinator", "--lease", "2"], name: "coordinator-1")
            var workers: [Process] = []
            for i in 0..<2 {
                workers.append(try cluster.start(["worker", "--demo", "--concurrency", "2", "--heartbeat", "0.3"], name: "worker-\(i)"))
            }
            let category = "k-\(UUID().uuidString.prefix(8).lowercased())"
            var nodes: [(key: String, value: JSON)] = []
            for i in 0..<4 { nodes.append(("s\(i)", Self.sleeper(0.6, mutex: i % 2 == 0 ? [category] : ["y-\(category)", category]))) }
            let graph: JSON = ["name": "mutex-kill", "nodes": .object(JSONObject(nodes))]
            let runs = [try TestCluster.submit(graph), try TestCluster.submit(graph), try TestCluster.submit(graph)]
            let store = try TestCluster.store()
            defer { store.close() }

            // Kill -9 the worker running a holder, then the coordinator, and start them again.
            var victim: Process?
            try TestCluster.waitUntil(30, "a holder to be running") {
                for run in runs {
                    for node in try store.nodes(ofRun: run) where node.status == "running" {
                        if let worker = node.worker, let p = workers.first(where: { worker.contains("-\($0.processIdentifier)-") }) {
                            victim = p
                            return true
                        }
                    }
                }
                return false
            }
            kill(try #require(victim).processIdentifier, SIGKILL)
            try cluster.start(["worker", "--demo", "--concurrency", "2", "--heartbeat", "0.3"], name: "worker-2")
            try TestCluster.waitUntil(30, "another node to be admitted") {
                try runs.flatMap { try store.nodes(ofRun: $0) }.filter { $0.status == "succeeded" }.count >= 2
            }
            kill(coordinator.processIdentifier, SIGKILL)
            coordinator.waitUntilExit()
            try cluster.start(["coordinator", "--lease", "2"], name: "coordinator-2")

            for run in runs { #expect(try TestCluster.waitForRun(run, store: store, seconds: 90) == "succeeded") }
            let spans = try Self.holdSpans(runs, nodes: ["s0", "s1", "s2", "s3"])
            #expect(spans.count >= 12)
            #expect(Self.mostAtOnce(spans) == 1, "\(spans)")
            #expect(try Self.holdRows(runs) == 0, "every hold was released")
        }

        @Test("a holder whose worker loses its lease releases: the next waiter goes, and its new attempt waits in line")
        func lostLeaseReleases() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.start(["coordinator", "--lease", "1"], name: "coordinator")
            let frozen = try cluster.start(["worker", "--demo", "--concurrency", "1", "--heartbeat", "0.3"], name: "frozen")
            let category = "l-\(UUID().uuidString.prefix(8).lowercased())"
            let runID = try TestCluster.submit([
                "name": "lease", "nodes": ["a": Self.sleeper(1.5, mutex: [category]), "b": Self.sleeper(0.3, mutex: [category])],
            ])
            let store = try TestCluster.store()
            defer { store.close() }
            try TestCluster.waitUntil(30, "a to be running") { try TestCluster.nodes(store, runID)["a"]?.status == "running" }
            #expect(try TestCluster.nodes(store, runID)["b"]?.status == "waiting", "b waits for the mutex")
            kill(frozen.processIdentifier, SIGSTOP)  // no heartbeats, no result: its lease runs out
            defer { kill(frozen.processIdentifier, SIGCONT) }
            try cluster.start(["worker", "--demo", "--concurrency", "1", "--heartbeat", "0.3"], name: "healthy")

            #expect(try TestCluster.waitForRun(runID, store: store, seconds: 30) == "succeeded")
            #expect(try TestCluster.nodes(store, runID)["a"]?.attempts == 2)
            let kinds = try store.events(ofRun: runID).filter { $0.node == "a" }.map(\.kind)
            #expect(
                kinds == [
                    "awaiting_admission", "admitted", "queued", "started", "lease_expired", "awaiting_admission", "admitted", "queued", "started",
                    "succeeded",
                ], "\(kinds)")
            let spans = try store.holdSpans(ofRun: runID, nodes: ["a", "b"])
            #expect(Store.overlaps(spans) == 0, "\(spans)")
            let b = try #require(spans.first { $0.node == "b" })
            let aSecond = try #require(spans.filter { $0.node == "a" }.map(\.from).max())
            #expect(b.to <= aSecond, "b, waiting first, went before a's new attempt")
        }

        @Test("concurrency lets at most N nodes with the same key run at once; other keys go beside them")
        func concurrencyLimit() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            try cluster.startWorker(concurrency: 8)
            let customer = "c-\(UUID().uuidString.prefix(8).lowercased())"
            func importer(_ key: JSON) -> JSON {
                ["procedure": "baton.sleep", "input": ["seconds": 0.5], "concurrency": ["key": key, "limit": 2]]
            }
            var nodes: [(key: String, value: JSON)] = [("who", ["procedure": "baton.echo", "input": ["customer": .string(customer)]])]
            for i in 0..<5 { nodes.append(("acme-\(i)", importer(["$from": "who", "select": "/customer"]))) }
            nodes.append(("other", importer(.string("other-\(customer)"))))
            let runID = try TestCluster.submit(["name": "concurrency", "nodes": .object(JSONObject(nodes))])
            let store = try TestCluster.store()
            defer { store.close() }
            #expect(try TestCluster.waitForRun(runID, store: store, seconds: 60) == "succeeded")
            let acme = try Self.holdSpans([runID], nodes: Set((0..<5).map { "acme-\($0)" }))
            #expect(Self.mostAtOnce(acme) == 2, "\(acme)")
            let all = try Self.holdSpans([runID], nodes: Set((0..<5).map { "acme-\($0)" } + ["other"]))
            #expect(Self.mostAtOnce(all) == 3, "the other key runs beside: \(all)")
        }

        @Test("a cached node in a later run takes the earlier output: succeeded, attempts 0, a cached event naming the source")
        func cacheHitAcrossRuns() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            try cluster.startWorker()
            let nonce = UUID().uuidString
            let first = try TestCluster.submit([
                "name": "cache-1",
                "nodes": ["x": ["procedure": "baton.echo", "input": ["n": 2.0, "nonce": .string(nonce)], "cache": ["ttl": "1h"]]],
            ])
            let store = try TestCluster.store()
            defer { store.close() }
            #expect(try TestCluster.waitForRun(first, store: store) == "succeeded")
            #expect(try TestCluster.nodes(store, first)["x"]?.attempts == 1)
            let second = try TestCluster.submit([
                "name": "cache-2", "nodes": ["y": ["procedure": "baton.echo", "input": ["nonce": .string(nonce), "n": 2], "cache": ["ttl": "1h"]]],
            ])
            #expect(try TestCluster.waitForRun(second, store: store) == "succeeded")
            let y = try #require(try TestCluster.nodes(store, second)["y"])
            #expect(y.status == "succeeded")
            #expect(y.attempts == 0)
            #expect(y.output == ["n": 2.0, "nonce": .string(nonce)])
            let cached = try store.events(ofRun: second).filter { $0.kind == "cached" }
            #expect(cached.map(\.detail) == [["source_run": .string(first), "source_node": "x"]])
            // A shorter ttl than the entry's age is a miss.
            let third = try TestCluster.submit([
                "name": "cache-3", "nodes": ["z": ["procedure": "baton.echo", "input": ["nonce": .string(nonce), "n": 2], "cache": ["ttl": "1ms"]]],
            ])
            #expect(try TestCluster.waitForRun(third, store: store) == "succeeded")
            #expect(try TestCluster.nodes(store, third)["z"]?.attempts == 1)
        }

        @Test("identical cached nodes in flight at once run once; the others wait for it (findOrFetch)")
        func findOrFetch() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            try cluster.startWorker(concurrency: 4)
            let seconds = 1.5 + Double.random(in: 0..<0.001)  // an input no earlier test cached
            let graph: JSON = [
                "name": "fetch", "nodes": ["slow": ["procedure": "baton.sleep", "input": ["seconds": .double(seconds)], "cache": ["ttl": "1h"]]],
            ]
            let runs = [try TestCluster.submit(graph), try TestCluster.submit(graph), try TestCluster.submit(graph)]
            let store = try TestCluster.store()
            defer { store.close() }
            for run in runs { #expect(try TestCluster.waitForRun(run, store: store, seconds: 60) == "succeeded") }
            let attempts = try runs.map { try TestCluster.nodes(store, $0)["slow"]?.attempts ?? -1 }
            #expect(attempts.sorted() == [0, 0, 1], "\(attempts)")
            let source = runs[attempts.firstIndex(of: 1) ?? 0]
            for (run, n) in zip(runs, attempts) where n == 0 {
                let kinds = try store.events(ofRun: run).filter { $0.node == "slow" }.map(\.kind)
                #expect(kinds == ["awaiting_admission", "cached", "succeeded"], "\(kinds)")
                let cached = try store.events(ofRun: run).first { $0.kind == "cached" }
                #expect(cached?.detail["source_run"] == .string(source))
            }
        }
    }
}
