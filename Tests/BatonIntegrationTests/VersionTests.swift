import Baton
import BatonStore
import Foundation
import Testing

extension Integration {
    /// Procedure versions on real services: a run planned on version 1 ends on it while version 2,
    /// with an input version 1 cannot read, rolls out beside it.
    @Suite("procedure versions", .serialized)
    @MainActor  // blocking waits here must not starve the cooperative pool the async unit tests need
    struct VersionTests {
        static func worker(_ cluster: TestCluster, versions: String, name: String) throws -> Process {
            try cluster.start(
                ["--concurrency", "4", "--heartbeat", "0.5"], name: name, environment: ["BATON_TEST_GREET_VERSIONS": versions],
                executable: TestWorkerRestarter.executablePath)
        }

        static func served(_ store: Store) throws -> Set<String> {
            Set(try store.liveWorkers().flatMap(\.procedures).filter { $0.hasPrefix("acme.greet") })
        }

        @Test("runs in flight end on version 1 while new runs go to version 2; without a v1 worker, v1 nodes wait with a clear line")
        func rollingOutAVersion() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            let store = try TestCluster.store()
            defer { store.close() }
            try cluster.startCoordinator()
            let v1 = try Self.worker(cluster, versions: "1", name: "greet-v1")
            try TestCluster.waitUntil(30, "a worker serving acme.greet") { try Self.served(store) == ["acme.greet"] }

            // In flight on version 1: the first node sleeps, the second is planned but not yet dispatched.
            let old = try TestCluster.submit([
                "nodes": [
                    "first": ["procedure": "acme.greet", "input": ["name": "Ada", "seconds": 2]],
                    "second": ["procedure": "acme.greet", "input": ["name": ["$from": "first", "select": "/greeting"]]],
                ]
            ])
            // Also planned on version 1, and still running its first node when version 1's worker stops.
            let late = try TestCluster.submit([
                "nodes": [
                    "first": ["procedure": "acme.greet", "input": ["name": "Fay", "seconds": 4]],
                    "second": ["procedure": "acme.greet", "input": ["name": ["$from": "first", "select": "/greeting"]]],
                ]
            ])
            let sql = try TestCluster.sql()
            let versions = try sql.query("select key, procedure, version from baton.nodes where run_id = $1::uuid order by key", [old])
            #expect(versions.rowCount == 2 && versions[row: 0, column: "procedure"] == "acme.greet" && versions.int(0, "version") == 1)

            let v2 = try Self.worker(cluster, versions: "2", name: "greet-v2")
            try TestCluster.waitUntil(30, "a worker serving acme.greet@2") { try Self.served(store) == ["acme.greet", "acme.greet@2"] }
            _ = v2

            // Unpinned, a new node is planned on version 2, and checked against its schema.
            let before = try TypeCheckTests.runCount()
            let v1Shaped: JSON = ["nodes": ["hi": ["procedure": "acme.greet", "input": ["name": "Bo"]]]]
            let refused = try TestCluster.cli(["submit", try GraphFixtures.write(v1Shaped)])
            #expect(refused.status == 2)
            #expect(refused.stderr.contains("node 'hi', field 'input/person'"), "\(refused.stderr)")
            let unknown: JSON = ["nodes": ["hi": ["procedure": "acme.greet@3", "input": ["name": "Bo"]]]]
            let pin3 = try TestCluster.cli(["submit", try GraphFixtures.write(unknown)])
            #expect(pin3.status == 2)
            #expect(
                pin3.stderr.contains("version 3 of procedure 'acme.greet' is not served (live workers serve acme.greet@1, acme.greet@2"),
                "\(pin3.stderr)")
            #expect(try TypeCheckTests.runCount() == before)

            let new = try TestCluster.submit(["nodes": ["hi": ["procedure": "acme.greet", "input": ["person": ["first": "Cy"]]]]])
            let pinned = try TestCluster.submit(["nodes": ["hi": ["procedure": "acme.greet@1", "input": ["name": "Di"]]]])
            #expect(try TestCluster.waitForRun(new, store: store) == "succeeded")
            #expect(try TestCluster.waitForRun(pinned, store: store) == "succeeded")
            #expect(try TestCluster.waitForRun(old, store: store) == "succeeded")
            #expect(try TestCluster.nodes(store, new)["hi"]?.output == ["greeting": "hello Cy", "version": 2])
            #expect(try TestCluster.nodes(store, new)["hi"]?.procedure == "acme.greet@2")
            #expect(try TestCluster.nodes(store, pinned)["hi"]?.output == ["greeting": "hello Di", "version": 1])
            #expect(try TestCluster.nodes(store, old)["second"]?.output == ["greeting": "hello hello Ada", "version": 1])

            // Version 1's worker stops while `late` runs on it: its attempt ends, and the next v1 node waits, queued, not failed.
            try TestCluster.waitUntil(30, "late's first node to run") { try TestCluster.nodes(store, late)["first"]?.status == "running" }
            v1.terminate()
            try TestCluster.waitUntil(30, "the v1 worker to stop") { !v1.isRunning }
            try TestCluster.waitUntil(30, "acme.greet to be unserved") { try Self.served(store) == ["acme.greet@2"] }
            try TestCluster.waitUntil(30, "late's second node to be queued") { try TestCluster.nodes(store, late)["second"]?.status == "queued" }
            #expect(try TestCluster.nodes(store, late)["first"]?.output == ["greeting": "hello Fay", "version": 1])
            let lateShown = try TestCluster.cli(["show", late])
            #expect(
                lateShown.stdout.contains(
                    "waiting for a worker: second (acme.greet in pool default): no live worker serves that procedure version in that pool"),
                "\(lateShown.stdout)")
            #expect(lateShown.stdout.contains("acme.greet: live workers serve version 2 only"), "\(lateShown.stdout)")

            // A pin on version 1 is now refused, naming the version served; accepted with --allow-unknown-procedures, it waits too.
            let orphan: JSON = ["nodes": ["hi": ["procedure": "acme.greet@1", "input": ["name": "Ed"]]]]
            let pin1 = try TestCluster.cli(["submit", try GraphFixtures.write(orphan)])
            #expect(pin1.status == 2 && pin1.stderr.contains("live workers serve acme.greet@2;"), "\(pin1.stderr)")
            let allowed = try TestCluster.cli(["submit", try GraphFixtures.write(orphan), "--allow-unknown-procedures", "--json"])
            #expect(allowed.status == 0, "\(allowed.stderr)")
            let waiting = try #require(try JSONParser.parse(allowed.stdout)["run_id"]?.stringValue)
            try TestCluster.waitUntil(30, "the v1 node to be queued") { try TestCluster.nodes(store, waiting)["hi"]?.status == "queued" }
            let shown = try TestCluster.cli(["show", waiting])
            #expect(shown.status == 0, "\(shown.stderr)")
            #expect(
                shown.stdout.contains(
                    "waiting for a worker: hi (acme.greet in pool default): no live worker serves that procedure version in that pool"),
                "\(shown.stdout)")
            #expect(shown.stdout.contains("acme.greet: live workers serve version 2 only"), "\(shown.stdout)")
            let listed = try JSONParser.parse(try TestCluster.cli(["procedures", "--json"]).stdout).arrayValue ?? []
            let greet = listed.filter { $0["procedure"] == "acme.greet" }
            #expect(greet.map { $0["version"] } == [1, 2], "\(greet)")
            #expect(greet.first?["served"] == false && greet.first?["unfinished_runs"] == 2, "\(greet)")
            #expect(greet.last?["served"] == true && greet.last?["unfinished_runs"] == 0, "\(greet)")
            #expect(try TestCluster.nodes(store, waiting)["hi"]?.status == "queued")
            #expect(try TestCluster.nodes(store, late)["second"]?.status == "queued")
            _ = try TestCluster.cli(["cancel", waiting])
            _ = try TestCluster.cli(["cancel", late])
        }
    }
}
