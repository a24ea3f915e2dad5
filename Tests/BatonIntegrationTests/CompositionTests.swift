import Baton
import BatonPostgres
import BatonStore
import Foundation
import Testing

extension Integration {
    /// Groups, maps and spawning on real services, including a coordinator killed mid-run.
    @Suite("groups, maps and spawning on real services", .serialized)
    @MainActor
    struct CompositionTests {
        func graph(_ file: String) throws -> JSON { try GraphFixtures.example(file) }

        @Test("the map, group and fib examples run on a cluster, their children stored as parent/child")
        func examplesRun() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            try cluster.startWorker(concurrency: 8)
            let store = try TestCluster.store()
            defer { store.close() }

            let map = try TestCluster.submit(try graph("map.json"))
            let group = try TestCluster.submit(try graph("group.json"))
            let fib = try TestCluster.submit(try graph("fib.json"))
            for run in [map, group, fib] { #expect(try TestCluster.waitForRun(run, store: store, seconds: 60) == "succeeded") }

            let mapNodes = try TestCluster.nodes(store, map)
            #expect(mapNodes["times-ten"]?.output == [10, 20, 30, 40, 50])
            #expect((0..<5).allSatisfy { mapNodes["times-ten/\($0)"]?.status == "succeeded" })
            #expect(mapNodes["total"]?.output == 150)

            let groupNodes = try TestCluster.nodes(store, group)
            #expect(groupNodes["stats"]?.output == ["double": 14, "square": 49, "sum": 63])
            #expect(groupNodes["stats/inner/sum"]?.output == 63)
            #expect(groupNodes["report"]?.output == ["sum": 63])

            let fibNodes = try TestCluster.nodes(store, fib)
            #expect(fibNodes["fib"]?.output == 55)
            #expect(fibNodes["fib/a/sum"]?.output == 34)
            // fib(10) spawns down to n < 2: 177 demo.fib nodes and 88 sums.
            #expect(fibNodes.count == 265)
            #expect(try store.successEventCounts(ofRun: fib).values.allSatisfy { $0 == 1 })
        }

        @Test("a coordinator killed with SIGKILL mid-spawn and mid-map resumes: nothing lost, nothing run twice")
        func coordinatorKilledMidRun() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            var coordinator = try cluster.startCoordinator()
            try cluster.startWorker(concurrency: 8)
            let store = try TestCluster.store()
            defer { store.close() }
            let runID = try TestCluster.submit([
                "name": "fib-and-map",
                "nodes": [
                    "fib": ["procedure": "demo.fib", "input": ["n": 13]],
                    "map": [
                        "map": [
                            "over": .array((0..<40).map { .int(Int64($0)) }), "procedure": "demo.slow-add", "concurrency": 4,
                            "input": ["values": [["$item": ""], ["$index": true]], "seconds": 0.05],
                        ]
                    ],
                    "both": ["procedure": "baton.echo", "input": ["fib": ["$from": "fib"], "last": ["$from": "map", "select": "/39"]]],
                ],
            ])
            for round in 0..<2 {
                // Kill it once some children have ended, while the rest are still going.
                let threshold = 60 + round * 200
                try TestCluster.waitUntil(60, "\(threshold) nodes ended") {
                    let ended = try TestCluster.sql().query(
                        "select count(*)::int as n from baton.nodes where run_id = $1::uuid and status = 'succeeded'", [runID])
                    return (ended.int(0, "n") ?? 0) >= threshold
                }
                kill(coordinator.processIdentifier, SIGKILL)
                coordinator.waitUntilExit()
                coordinator = try cluster.startCoordinator()
            }
            #expect(try TestCluster.waitForRun(runID, store: store, seconds: 120) == "succeeded")
            let nodes = try TestCluster.nodes(store, runID)
            #expect(nodes["fib"]?.output == 233)
            #expect(nodes["map"]?.output == .array((0..<40).map { .int(Int64($0 * 2)) }))
            #expect(nodes["both"]?.output == ["fib": 233, "last": 78])
            #expect(nodes.values.allSatisfy { $0.status == "succeeded" })
            let counted = try store.successEventCounts(ofRun: runID)
            #expect(counted.count == nodes.count)
            #expect(counted.filter { $0.value != 1 }.isEmpty, "succeeded more than once: \(counted.filter { $0.value != 1 })")
        }

        @Test("a map's concurrency bounds its children on a cluster; a group's timeout cancels what it runs")
        func concurrencyAndGroupTimeout() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            try cluster.startWorker(concurrency: 8)
            let store = try TestCluster.store()
            defer { store.close() }
            let mapRun = try TestCluster.submit([
                "name": "bounded-map",
                "nodes": [
                    "m": [
                        "map": [
                            "over": [1, 2, 3, 4, 5, 6, 7, 8], "procedure": "demo.slow-add", "concurrency": 2,
                            "input": ["values": [["$item": ""]], "seconds": 0.2],
                        ]
                    ]
                ],
            ])
            let groupRun = try TestCluster.submit([
                "name": "group-timeout",
                "nodes": ["g": ["timeout": "1s", "group": ["nodes": ["nap": ["procedure": "baton.sleep", "input": ["seconds": 60]]]]]],
            ])
            #expect(try TestCluster.waitForRun(mapRun, store: store, seconds: 60) == "succeeded")
            #expect(try TestCluster.nodes(store, mapRun)["m"]?.output == [1, 2, 3, 4, 5, 6, 7, 8])
            // From queued to finished, never more than two children at once.
            let r = try TestCluster.sql().query(
                """
                select extract(epoch from queued_at)::float8 as q, extract(epoch from finished_at)::float8 as f
                from baton.nodes where run_id = $1::uuid and key like 'm/%'
                """, [mapRun])
            let spans = (0..<r.rowCount).map { (Double(r[row: $0, column: "q"]!)!, Double(r[row: $0, column: "f"]!)!) }
            #expect(spans.count == 8)
            // Sweep the starts and ends (an end before a start at the same instant) for the most at once.
            var edges: [(at: Double, change: Int)] = spans.map { (at: $0.0, change: 1) }
            edges += spans.map { (at: $0.1, change: -1) }
            edges.sort { a, b in a.at < b.at || (a.at == b.at && a.change < b.change) }
            var current = 0
            var most = 0
            for edge in edges {
                current += edge.change
                most = max(most, current)
            }
            #expect(most <= 2, "\(most) children overlapped")

            #expect(try TestCluster.waitForRun(groupRun, store: store, seconds: 30) == "failed")
            let nodes = try TestCluster.nodes(store, groupRun)
            #expect(nodes["g"]?.error == "timed out: the group did not end within 1s")
            #expect(nodes["g/nap"]?.status == "cancelled")
        }
    }
}
