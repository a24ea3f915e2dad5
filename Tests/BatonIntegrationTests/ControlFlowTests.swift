import Baton
import BatonPostgres
import BatonStore
import Foundation
import Testing

extension Integration {
    /// Retries, timeouts, cancellation, delays, retrying runs and watching them, on real services.
    @Suite("control flow on real services", .serialized)
    @MainActor  // blocking waits here must not starve the cooperative pool the async unit tests need
    struct ControlFlowTests {
        func submit(_ graph: JSON) throws -> String { try TestCluster.submit(graph) }
        func nodes(_ store: Store, _ runID: String) throws -> [String: NodeRow] { try TestCluster.nodes(store, runID) }

        /// (kind, seconds since the epoch, due time in seconds if the event names one) of a node's events, in order.
        func eventTimes(_ store: Store, _ runID: String, _ key: String) throws -> [(kind: String, at: Double, due: Double?)] {
            let r = try TestCluster.sql().query(
                """
                select kind, extract(epoch from at)::float8 as t, extract(epoch from (detail->>'due_at')::timestamptz)::float8 as due
                from baton.events where run_id = $1::uuid and node_key = $2 order by id
                """, [runID, key])
            return (0..<r.rowCount).map {
                (r[row: $0, column: "kind"]!, Double(r[row: $0, column: "t"]!)!, r[row: $0, column: "due"].flatMap(Double.init))
            }
        }

        @Test("retries wait out their back-off between attempts, as the event timestamps show")
        func retriesWait() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            try cluster.startWorker()
            let wait = 0.7
            let runID = try submit([
                "name": "retry",
                "nodes": [
                    "flaky": [
                        "procedure": "baton.fail", "input": ["message": "busy", "succeed_on_attempt": 3],
                        "retry": ["attempts": 3, "wait": ["constant": "700ms"]],
                    ]
                ],
            ])
            let store = try TestCluster.store()
            defer { store.close() }
            #expect(try TestCluster.waitForRun(runID, store: store, seconds: 30) == "succeeded")
            let flaky = try #require(try nodes(store, runID)["flaky"])
            #expect(flaky.attempts == 3)
            #expect(flaky.output == ["attempt": 3])
            let events = try eventTimes(store, runID, "flaky")
            #expect(events.map(\.kind) == ["queued", "started", "retrying", "queued", "started", "retrying", "queued", "started", "succeeded"])
            // Each new attempt was due the back-off after the failure before it (the `retrying` event is
            // stamped when the attempt failed, not when its commit ran), and queued no sooner than due.
            let retrying = events.filter { $0.kind == "retrying" }
            let queued = events.filter { $0.kind == "queued" }.map(\.at).dropFirst()
            #expect(retrying.count == 2 && queued.count == 2)
            for (failed, requeuedAt) in zip(retrying, queued) {
                let due = try #require(failed.due, "a retrying event names its due time")
                #expect(abs(due - failed.at - wait) < 0.002, "due \(due - failed.at) s after the failure")
                #expect(requeuedAt >= due - 0.001, "re-queued \(due - requeuedAt) s before it was due")
                #expect(requeuedAt - failed.at < wait + 2, "re-queued after \(requeuedAt - failed.at) s")
            }
        }

        @Test("a timeout frees the node from a hung procedure, and the worker slot with it")
        func timeoutFreesHungNode() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            try cluster.startWorker(concurrency: 1)
            let runID = try submit([
                "name": "timeout",
                "nodes": [
                    "hung": ["procedure": "baton.sleep", "input": ["seconds": 120], "timeout": "1s"],
                    "finally": ["procedure": "baton.echo", "input": ["ok": true], "after": ["hung"], "dependencies": "all-finished"],
                ],
            ])
            let store = try TestCluster.store()
            defer { store.close() }
            let began = Date()
            #expect(try TestCluster.waitForRun(runID, store: store, seconds: 30) == "failed")
            #expect(Date().timeIntervalSince(began) < 10)
            let all = try nodes(store, runID)
            #expect(all["hung"]?.status == "failed")
            #expect(all["hung"]?.error == "timed out after 1s")
            // The single slot was free again for the next node.
            #expect(all["finally"]?.status == "succeeded")
        }

        @Test("a frozen worker cannot hold a node: the coordinator times the attempt out and the retry runs elsewhere")
        func frozenWorkerTimedOut() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            let frozen = try cluster.startWorker(concurrency: 1, name: "frozen")
            let store = try TestCluster.store()
            defer { store.close() }
            let runID = try submit([
                "name": "frozen",
                "nodes": [
                    "nap": [
                        "procedure": "baton.sleep", "input": ["seconds": 2], "timeout": "1s", "retry": ["attempts": 2],
                    ]
                ],
            ])
            try TestCluster.waitUntil(30, "the nap to be running") { try nodes(store, runID)["nap"]?.status == "running" }
            kill(frozen.processIdentifier, SIGSTOP)  // it can neither time out nor report
            defer { kill(frozen.processIdentifier, SIGCONT) }
            try cluster.startWorker(concurrency: 1, name: "healthy")

            // The first attempt times out by the coordinator's deadline (1 s + 2 s grace); the retry
            // runs on the healthy worker, and its own timeout fails it too: 2 s of sleep > 1 s.
            #expect(try TestCluster.waitForRun(runID, store: store, seconds: 30) == "failed")
            let events = try eventTimes(store, runID, "nap").map(\.kind)
            #expect(events.contains("timed_out"))
            let nap = try #require(try nodes(store, runID)["nap"])
            #expect(nap.attempts == 2)
            #expect(nap.error == "timed out after 1s")
        }

        @Test("baton cancel stops a running sleeping procedure within a second")
        func cancelStopsRunningSleep() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            try cluster.startWorker(concurrency: 1)
            let runID = try submit([
                "name": "cancel",
                "nodes": [
                    "nap": ["procedure": "baton.sleep", "input": ["seconds": 60]],
                    "after-nap": ["procedure": "baton.echo", "input": ["x": ["$from": "nap"]]],
                    "pending-too": ["procedure": "baton.echo", "input": [:], "after": ["nap"]],
                    // Queued in the broker behind the first (one slot): once cancelled it must not run at all.
                    "nap-2": ["procedure": "baton.sleep", "input": ["seconds": 60]],
                ],
            ])
            let store = try TestCluster.store()
            defer { store.close() }
            try TestCluster.waitUntil(30, "a nap to be running") {
                let n = try nodes(store, runID)
                return n["nap"]?.status == "running" || n["nap-2"]?.status == "running"
            }

            let cancelledAt = Date()
            let cancel = try TestCluster.cli(["cancel", runID])
            #expect(cancel.status == 0, "\(cancel.stderr)")
            #expect(cancel.stdout.contains("cancelled"))
            let all = try nodes(store, runID)
            #expect(try store.run(runID)?.status == .cancelled)
            #expect(all.values.allSatisfy { $0.status == "cancelled" })
            #expect(all["nap"]?.error?.hasPrefix("cancelled") == true)
            #expect(all["nap-2"]?.error?.hasPrefix("cancelled") == true)

            // The one slot is free again only once the sleeping procedure has really stopped,
            // and the other nap, still queued when the run was cancelled, was not run.
            let next = try submit(["name": "after-cancel", "nodes": ["echo": ["procedure": "baton.echo", "input": ["n": 1]]]])
            #expect(try TestCluster.waitForRun(next, store: store, seconds: 10) == "succeeded")
            let started = try TestCluster.sql().query(
                "select extract(epoch from started_at)::float8 as t from baton.nodes where run_id = $1::uuid", [next])[row: 0, column: "t"]
            let slotFreeAfter = try #require(Double(started ?? "")) - cancelledAt.timeIntervalSince1970
            #expect(slotFreeAfter < 1.5, "the worker took \(slotFreeAfter) s to free its slot")
            // A second cancel is refused: the run already ended.
            let again = try TestCluster.cli(["cancel", runID])
            #expect(again.status == 1)
            #expect(again.stderr.contains("already ended (cancelled)"))
        }

        @Test("a baton.delay survives a coordinator killed with SIGKILL")
        func delaySurvivesCoordinatorRestart() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            let coordinator = try cluster.startCoordinator()
            try cluster.startWorker()
            let runID = try submit([
                "name": "delay",
                "nodes": [
                    "pause": ["procedure": "baton.delay", "input": ["seconds": 3]],
                    "after": ["procedure": "baton.echo", "input": ["fired": ["$from": "pause", "select": "/fired_at"]]],
                ],
            ])
            let store = try TestCluster.store()
            defer { store.close() }
            try TestCluster.waitUntil(30, "the delay to be armed") { try nodes(store, runID)["pause"]?.status == "waiting" }
            let due = try TestCluster.sql().query(
                "select extract(epoch from due_at)::float8 as t from baton.nodes where run_id = $1::uuid and key = 'pause'", [runID])
            let dueAt = try #require(Double(due[row: 0, column: "t"] ?? ""))
            kill(coordinator.processIdentifier, SIGKILL)
            coordinator.waitUntilExit()
            try cluster.startCoordinator()

            #expect(try TestCluster.waitForRun(runID, store: store, seconds: 30) == "succeeded")
            let all = try nodes(store, runID)
            let fired = try #require(all["pause"]?.output?["fired_at"]?.stringValue)
            let firedAt = try #require(try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(fired)).timeIntervalSince1970
            #expect(firedAt >= dueAt - 0.01)
            #expect(firedAt < dueAt + 2.5, "fired \(firedAt - dueAt) s after it was due: the timer was not kept")
            #expect(all["after"]?.output == ["fired": .string(fired)])
        }

        @Test("baton retry reruns the failed node, reusing what succeeded")
        func retryARun() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            try cluster.startWorker()
            let runID = try submit([
                "name": "retry-run",
                "nodes": [
                    "ok": ["procedure": "baton.add", "input": ["values": [1, 2]]],
                    "second-time-lucky": ["procedure": "baton.fail", "input": ["message": "first try fails", "succeed_on_attempt": 2]],
                    "join": ["procedure": "baton.echo", "input": ["ok": ["$from": "ok"], "lucky": ["$from": "second-time-lucky"]]],
                ],
            ])
            let store = try TestCluster.store()
            defer { store.close() }
            #expect(try TestCluster.waitForRun(runID, store: store, seconds: 30) == "failed")
            #expect(try nodes(store, runID)["join"]?.status == "cancelled")

            let retry = try TestCluster.cli(["retry", runID, "--wait"])
            #expect(retry.status == 0, "\(retry.stderr)")
            let all = try nodes(store, runID)
            #expect(try store.run(runID)?.status == .succeeded)
            #expect(all["ok"]?.attempts == 1)  // reused, not run again
            #expect(all["second-time-lucky"]?.attempts == 2)
            #expect(all["join"]?.output == ["ok": 3, "lucky": ["attempt": 2]])
            // Retrying a succeeded run is refused.
            let again = try TestCluster.cli(["retry", runID])
            #expect(again.status == 1)
            #expect(again.stderr.contains("only a failed or cancelled run can be retried"))
        }

        @Test("baton retry --from on a cancelled run reruns the cancelled nodes it needs; one that could not succeed is refused")
        func retryFromACancelledRun() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            try cluster.startWorker()
            let store = try TestCluster.store()
            defer { store.close() }
            func cancelWhileRunning(_ graph: JSON, _ running: [String]) throws -> String {
                let runID = try submit(graph)
                try TestCluster.waitUntil(30, "\(running) to be running") {
                    let n = try nodes(store, runID)
                    return running.allSatisfy { n[$0]?.status == "running" }
                }
                #expect(try TestCluster.cli(["cancel", runID]).status == 0)
                #expect(try store.run(runID)?.status == .cancelled)
                return runID
            }

            // after-nap needs nap, which was cancelled too: both run again, and the run succeeds.
            let chain = try cancelWhileRunning(
                [
                    "name": "retry-from",
                    "nodes": [
                        "nap": ["procedure": "baton.sleep", "input": ["seconds": 1.5]],
                        "after-nap": ["procedure": "baton.echo", "input": ["slept": ["$from": "nap", "select": "/slept"]]],
                    ],
                ], ["nap"])
            let retry = try TestCluster.cli(["retry", chain, "--from", "after-nap", "--wait"])
            #expect(retry.status == 0, "\(retry.stderr)")
            #expect(try store.run(chain)?.status == .succeeded)
            #expect(try nodes(store, chain)["after-nap"]?.output == ["slept": 1.5])

            // Here 'other' was cancelled as well and nothing from after-nap reruns it: the run could only fail again.
            let apart = try cancelWhileRunning(
                [
                    "name": "retry-from-refused",
                    "nodes": [
                        "nap": ["procedure": "baton.sleep", "input": ["seconds": 1.5]],
                        "after-nap": ["procedure": "baton.echo", "input": ["slept": ["$from": "nap"]]],
                        "other": ["procedure": "baton.sleep", "input": ["seconds": 1.5]],
                    ],
                ], ["nap", "other"])
            let refused = try TestCluster.cli(["retry", apart, "--from", "after-nap"])
            #expect(refused.status == 2)
            #expect(
                refused.stderr == "baton: cannot retry run \(apart) from 'after-nap': node 'other' was cancelled and would not run again, "
                    + "so the run could not succeed; retry without --from to rerun it too\n")
            let sql = try PGConnection(url: TestCluster.databaseURL)
            defer { sql.close() }
            let requests = try sql.query("select count(*) as n from baton.requests where run_id = $1::uuid", [apart])
            #expect(requests.int(0, "n") == 1, "only the cancel request was stored")
            #expect(try store.run(apart)?.status == .cancelled)
        }

        @Test("baton watch follows progress and log lines until the run ends")
        func watchFollowsEvents() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            try cluster.startWorker()
            let runID = try submit(["name": "watch", "nodes": ["work": ["procedure": "demo.steps", "input": ["steps": 3, "seconds": 0.3]]]])
            let watch = try TestCluster.cli(["watch", runID])
            #expect(watch.status == 0, "\(watch.stderr)")
            let lines = watch.stdout.split(separator: "\n")
            #expect(lines.filter { $0.contains("  work  log  ") }.count == 3)
            #expect(lines.contains { $0.contains("  work  progress  ") && $0.contains("fraction=1.0") })
            #expect(lines.last?.contains("run_succeeded") == true)
        }

        @Test("the conditions example ends the same on the cluster as in process")
        func conditionsParity() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            try cluster.startWorker()
            let path = GraphFixtures.examplesDirectory.appendingPathComponent("conditions.json").path
            let cluster_ = try TestCluster.cli(["submit", path, "--wait", "--json"])
            let local = try TestCluster.cli(["run", path, "--local", "--json"])
            #expect(cluster_.status == 0 && local.status == 0, "\(cluster_.stderr) \(local.stderr)")
            let runID = try #require(try JSONParser.parse(cluster_.stdout)["run_id"]?.stringValue)
            let store = try TestCluster.store()
            defer { store.close() }
            let localNodes = try #require(try JSONParser.parse(local.stdout)["nodes"]?.objectValue)
            for (key, node) in try nodes(store, runID) {
                #expect(localNodes[key]?["status"]?.stringValue == node.status, "\(key)")
                #expect(localNodes[key]?["output"] == node.output, "\(key)")
                #expect(localNodes[key]?["error"]?.stringValue == node.error, "\(key)")
            }
            #expect(localNodes["email"]?["status"] == "skipped")
            #expect(localNodes["not-archived"]?["status"] == "skipped")
        }
    }
}
