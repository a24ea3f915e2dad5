import Baton
import BatonStore
import Foundation
import Testing

extension Integration {
    /// Graphs run on a real coordinator and real worker processes, over real PostgreSQL and RabbitMQ.
    @Suite("end to end on real services", .serialized)
    @MainActor  // blocking waits here must not starve the cooperative pool the async unit tests need
    struct EndToEndTests {
        @Test("the word-count example succeeds with injected values stored in the inputs")
        func wordCountExample() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            let coordinator = try cluster.startCoordinator()
            try cluster.startWorker()
            try cluster.startWorker(name: "worker-2")
            defer {
                // SIGTERM: the coordinator finishes its batch and exits 0.
                coordinator.terminate()
                coordinator.waitUntilExit()
                #expect(coordinator.terminationStatus == 0)
            }

            let path = GraphFixtures.examplesDirectory.appendingPathComponent("word-count.json").path
            let submit = try TestCluster.cli(["submit", path, "--wait", "--json"])
            #expect(submit.status == 0, "submit --wait failed: \(submit.stderr)")
            let result = try JSONParser.parse(submit.stdout)
            #expect(result["status"] == "succeeded")
            let runID = try #require(result["run_id"]?.stringValue)

            let store = try TestCluster.store()
            defer { store.close() }
            let nodes = try TestCluster.nodes(store, runID)
            #expect(nodes.count == 7)
            // --json --wait prints every node's output, as stored.
            #expect(result["outputs"]?.objectValue?.count == 7)
            #expect(nodes.allSatisfy { result["outputs"]?[$0.key] == $0.value.output }, "\(submit.stdout)")
            #expect(nodes.values.allSatisfy { $0.status == "succeeded" && $0.attempts == 1 && $0.worker != nil })
            // Each count node's input is the chunk selected from the chunk node's output.
            let chunks = try #require(nodes["chunk"]?.output?["chunks"]?.arrayValue)
            for i in 1...3 { #expect(nodes["count-\(i)"]?.input?["text"] == chunks[i - 1]) }
            // The merge node's input holds the three counts, and its output their sum.
            let counts = (1...3).map { nodes["count-\($0)"]!.output!["counts"]! }
            #expect(nodes["merge"]?.input?["counts"] == .array(counts))
            let total = (1...3).map { nodes["count-\($0)"]!.output!["total"]!.intValue! }.reduce(0, +)
            #expect(nodes["merge"]?.output?["total"]?.intValue == total)
            // Every transition was logged.
            let events = try store.events(ofRun: runID)
            for key in nodes.keys {
                #expect(events.filter { $0.node == key }.map(\.kind) == ["queued", "started", "succeeded"], "events of \(key)")
            }
            #expect(events.last?.kind == "run_succeeded")
        }

        @Test("with --dispatch-window 4, a 40-node fan-out never has more than 4 nodes out, and succeeds")
        func dispatchWindow() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.start(["coordinator", "--dispatch-window", "4"], name: "coordinator")
            try cluster.startWorker(concurrency: 8)
            var nodes: [(key: String, value: JSON)] = (0..<40).map { ("n\($0)", ["procedure": "baton.echo", "input": ["i": .int(Int64($0))]]) }
            nodes.append(
                ("join", ["procedure": "baton.add", "input": ["values": .array((0..<40).map { ["$from": .string("n\($0)"), "select": "/i"] })]]))
            let runID = try TestCluster.submit(["name": "window", "nodes": .object(JSONObject(nodes))])
            let store = try TestCluster.store()
            defer { store.close() }
            #expect(try TestCluster.waitForRun(runID, store: store) == "succeeded")
            #expect(try TestCluster.nodes(store, runID)["join"]?.output == .int(Int64((0..<40).reduce(0, +))))
            // At each moment a node was queued: how many were queued by then and not yet finished.
            let sql = try TestCluster.sql()
            defer { sql.close() }
            let r = try sql.query(
                """
                select max((select count(*) from baton.nodes m
                            where m.run_id = n.run_id and m.queued_at <= n.queued_at and m.finished_at > n.queued_at)) as most
                from baton.nodes n where n.run_id = $1::uuid
                """, [runID])
            let most = try #require(r.int(0, "most"))
            #expect(most >= 2 && most <= 4, "at most 4 nodes out at once (and the window was used): \(most)")
        }

        @Test("a failing node fails the run, cancels its dependents with the reason, and leaves other branches alone")
        func failurePropagation() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            try cluster.startWorker()
            let graph: JSON = [
                "name": "failure",
                "nodes": [
                    "boom": ["procedure": "baton.fail", "input": ["message": "disk on fire"]],
                    "after-boom": ["procedure": "baton.echo", "input": ["x": ["$from": "boom"]]],
                    "later": ["procedure": "baton.echo", "input": [:], "after": ["after-boom"]],
                    "fine": ["procedure": "baton.add", "input": ["values": [1, 2]]],
                    "fine-2": ["procedure": "baton.echo", "input": ["sum": ["$from": "fine"]]],
                ],
            ]
            let submit = try TestCluster.cli(["submit", try GraphFixtures.write(graph), "--wait", "--json"])
            #expect(submit.status == 1)
            let runID = try #require(try JSONParser.parse(submit.stdout)["run_id"]?.stringValue)
            let store = try TestCluster.store()
            defer { store.close() }
            let run = try #require(try store.run(runID))
            #expect(run.status == .failed)
            #expect(run.error?.contains("node 'boom' failed: disk on fire") == true)
            let nodes = try TestCluster.nodes(store, runID)
            #expect(nodes["boom"]?.status == "failed")
            #expect(nodes["boom"]?.error == "disk on fire")
            #expect(nodes["after-boom"]?.status == "cancelled")
            #expect(nodes["after-boom"]?.error == "dependency 'boom' failed")
            #expect(nodes["later"]?.status == "cancelled")
            #expect(nodes["later"]?.error == "dependency 'after-boom' was cancelled")
            #expect(nodes["fine"]?.status == "succeeded")
            #expect(nodes["fine-2"]?.status == "succeeded")
            #expect(nodes["fine-2"]?.output == ["sum": 3])
        }

        @Test("an invalid graph is rejected with every problem listed, and nothing is stored")
        func invalidGraphRejected() throws {
            _ = TestCluster()
            let store = try TestCluster.store()
            defer { store.close() }
            let before = try TestCluster.sql().query("select count(*) as n from baton.runs").int(0, "n")
            let graph: JSON = [
                "name": "broken",
                "nodes": [
                    "a": ["procedure": "baton.echo", "input": ["$from": "missing"]],
                    "B": ["procedure": "baton.echo"],
                    "c": ["procedure": "no.such-procedure", "after": ["c"]],
                    "d": ["procedure": "baton.echo", "input": ["$from": "a", "select": "no-slash"]],
                ],
            ]
            let result = try TestCluster.cli(["submit", try GraphFixtures.write(graph)])
            #expect(result.status == 2)
            for expected in [
                "node 'a', field 'input/$from': refers to missing node 'missing'",
                "node 'B'", "invalid node key",
                "node 'c', field 'procedure': unknown procedure 'no.such-procedure'",
                "node 'c', field 'after/0': a node cannot come after itself",
                "node 'd', field 'input/select': invalid JSON pointer",
            ] {
                #expect(result.stderr.contains(expected), "missing \(expected) in: \(result.stderr)")
            }
            let after = try TestCluster.sql().query("select count(*) as n from baton.runs").int(0, "n")
            #expect(after == before)
        }

        @Test("a 1,000-node fan-out into one join computes the right sum")
        func thousandNodeFanOut() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            try cluster.startWorker(concurrency: 16)
            try cluster.startWorker(concurrency: 16, name: "worker-2")
            let width = 1_000
            let seed: Int64 = 11
            let submit = try TestCluster.cli(["submit", try GraphFixtures.write(GraphFixtures.fanOut(width: width, seed: seed)), "--json"])
            #expect(submit.status == 0, "\(submit.stderr)")
            let runID = try #require(try JSONParser.parse(submit.stdout)["run_id"]?.stringValue)
            let store = try TestCluster.store()
            defer { store.close() }
            #expect(try TestCluster.waitForRun(runID, store: store, seconds: 120) == "succeeded")
            let nodes = try store.nodes(ofRun: runID)
            #expect(nodes.count == width + 2)
            #expect(nodes.allSatisfy { $0.status == "succeeded" })
            let expected = (0..<Int64(width)).reduce(0) { $0 + $1 + seed }
            #expect(nodes.first { $0.key == "join" }?.output?.intValue == Int(expected))
        }

        @Test("a worker killed with SIGKILL mid-run: its tasks are redelivered and the run completes")
        func workerKilledMidRun() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            let victim = try cluster.startWorker(concurrency: 4, name: "victim")
            var nodes: [(key: String, value: JSON)] = []
            for i in 0..<12 { nodes.append(("sleep-\(i)", ["procedure": "baton.sleep", "input": ["seconds": 2]])) }
            nodes.append(("join", ["procedure": "baton.echo", "input": .array((0..<12).map { ["$from": .string("sleep-\($0)")] })]))
            let runID = try TestCluster.submit(["name": "kill", "nodes": .object(JSONObject(nodes))])
            let store = try TestCluster.store()
            defer { store.close() }

            // Kill the victim while it is running something.
            var victimID = ""
            var runningOnVictim: Set<String> = []
            try TestCluster.waitUntil(30, "a node running on the victim") {
                let running = try store.nodes(ofRun: runID).filter { $0.status == "running" }
                victimID = running.first?.worker ?? ""
                runningOnVictim = Set(running.map(\.key))
                return !running.isEmpty
            }
            #expect(victimID.contains("-\(victim.processIdentifier)-"))
            kill(victim.processIdentifier, SIGKILL)
            victim.waitUntilExit()
            try cluster.startWorker(concurrency: 4, name: "rescuer")

            #expect(try TestCluster.waitForRun(runID, store: store, seconds: 60) == "succeeded")
            let finished = try store.nodes(ofRun: runID)
            #expect(finished.allSatisfy { $0.status == "succeeded" })
            // What the victim was running when it died (2 s sleeps, killed at once) was finished by another worker.
            let rescued = finished.filter { runningOnVictim.contains($0.key) }
            #expect(!rescued.isEmpty)
            #expect(rescued.allSatisfy { $0.worker != nil && $0.worker != victimID }, "\(rescued.map { ($0.key, $0.worker ?? "-") })")
            #expect(finished.first { $0.key == "join" }?.output?.arrayValue?.count == 12)
            // The history says so: the victim's attempt was delivered again, to the worker that finished it.
            let events = try store.events(ofRun: runID)
            for node in rescued {
                let mine = events.filter { $0.node == node.key }
                let again = mine.firstIndex { $0.kind == "redelivered" }
                #expect(again != nil, "\(node.key): \(mine.map(\.kind))")
                guard let again else { continue }
                #expect(mine[again].detail["worker"] == .string(victimID))
                #expect(mine[again].detail["to"] == .string(node.worker ?? ""))
                #expect(mine[(again + 1)...].first { $0.kind == "started" }?.detail["worker"] == .string(node.worker ?? ""))
            }
            // baton show names both workers.
            let show = try TestCluster.cli(["show", runID])
            let first = rescued.first?.key ?? "?"
            let line = show.stdout.split(separator: "\n").first { $0.hasPrefix(first + " ") } ?? ""
            #expect(line.contains("\(rescued.first?.worker ?? "?") (after \(victimID))"), "\(show.stdout)")
            let json = try JSONParser.parse(try TestCluster.cli(["show", runID, "--json"]).stdout)
            let shown = json["nodes"]?.arrayValue?.first { $0["key"] == .string(rescued.first?.key ?? "") }
            #expect(shown?["lost_workers"] == [.string(victimID)])
            // So does the dashboard, in the table and in the node's panel, with the redelivered event.
            guard (try? Chromium.executable()) != nil else { return }
            let port = try DashboardTests.startDashboard(cluster)
            let page = try Chromium.dumpDOM("http://127.0.0.1:\(port)/runs/\(runID)#node=\(first)", budget: 8000)
            #expect(page.contains("<h2 class=\"mono\">\(first)</h2>"), "the node panel did not open: \(page.suffix(3000))")
            #expect(page.components(separatedBy: "(after \(victimID))").count >= 3, "table and panel: \(page.suffix(4000))")
            #expect(page.contains("redelivered"))
        }
    }
}
