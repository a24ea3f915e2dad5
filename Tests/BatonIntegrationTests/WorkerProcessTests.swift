import Baton
import BatonAMQP
import BatonStore
import Foundation
import Testing

extension Integration {
    /// The worker processes themselves: supervision and graceful shutdown.
    @Suite("worker processes", .serialized)
    @MainActor  // blocking waits here must not starve the cooperative pool the async unit tests need
    struct WorkerProcessTests {
        @Test(
            "--processes 2 restarts a child killed with SIGKILL, and SIGTERM stops them all: `baton worker` and a WorkerMain binary alike",
            arguments: ["baton worker", "WorkerMain"])
        func supervisorRestartsAndStops(_ binary: String) throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            let supervisor =
                binary == "WorkerMain"
                ? try cluster.start(
                    ["--processes", "2", "--concurrency", "2"], name: "supervised-main", executable: TestWorkerRestarter.executablePath)
                : try cluster.start(["worker", "--demo", "--processes", "2", "--concurrency", "2"], name: "supervised")
            let store = try TestCluster.store()
            defer { store.close() }

            func liveChildren() throws -> [WorkerRow] {
                try store.liveWorkers(within: 30).filter { row in
                    kill(pid_t(row.pid), 0) == 0 && parentPID(of: pid_t(row.pid)) == supervisor.processIdentifier
                }
            }
            var first: [WorkerRow] = []
            try TestCluster.waitUntil(30, "two supervised workers heartbeating") {
                first = try liveChildren()
                return first.count == 2
            }
            let victim = first[0]
            kill(pid_t(victim.pid), SIGKILL)
            try TestCluster.waitUntil(30, "a replacement worker") {
                let now = try liveChildren()
                return now.count == 2 && !now.contains { $0.id == victim.id }
            }
            let children = try liveChildren().map { pid_t($0.pid) }

            supervisor.terminate()
            try TestCluster.waitUntil(40, "the supervisor to exit") { !supervisor.isRunning }
            #expect(supervisor.terminationStatus == 0)
            #expect(children.allSatisfy { kill($0, 0) != 0 }, "children still alive: \(children)")
        }

        @Test("SIGTERM lets a running procedure finish and report before the worker exits 0")
        func gracefulShutdownDrains() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            let worker = try cluster.startWorker(concurrency: 2)
            let graph: JSON = ["name": "drain", "nodes": ["nap": ["procedure": "baton.sleep", "input": ["seconds": 1.5]]]]
            let runID = try TestCluster.submit(graph)
            let store = try TestCluster.store()
            defer { store.close() }
            try TestCluster.waitUntil(30, "the nap to be running") { try store.nodes(ofRun: runID).first?.status == "running" }

            worker.terminate()
            try TestCluster.waitUntil(30, "the worker to exit") { !worker.isRunning }
            #expect(worker.terminationStatus == 0)
            // The attempt finished on that worker and was reported before it exited: no other worker exists.
            #expect(try TestCluster.waitForRun(runID, store: store, seconds: 10) == "succeeded")
            #expect(try store.nodes(ofRun: runID).first?.attempts == 1)
        }

        @Test("tasks waiting in a stopping worker go back without counting a delivery, so a delivery limit of 1 does not fail them")
        func waitingTasksHandedBackUncounted() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            let limit = ["--delivery-limit", "1"]
            let first = try cluster.start(["worker", "--concurrency", "1", "--prefetch", "4"] + limit, name: "first")
            try TestCluster.waitUntil(30, "the worker to consume") { cluster.log("first").contains("prefetch 4") }
            let naps = (1...4).map { ("nap-\($0)", JSON(["procedure": "baton.sleep", "input": ["seconds": 1]])) }
            let runID = try TestCluster.submit(["name": "hand-back", "nodes": .object(JSONObject(naps))])
            let store = try TestCluster.store()
            defer { store.close() }
            try TestCluster.waitUntil(30, "a nap to be running") { try store.nodes(ofRun: runID).contains { $0.status == "running" } }

            first.terminate()  // the running nap finishes; the three waiting go back to the queue
            try TestCluster.waitUntil(30, "the worker to exit") { !first.isRunning }
            #expect(first.terminationStatus == 0)
            try cluster.start(["worker", "--concurrency", "4"] + limit, name: "second")
            #expect(try TestCluster.waitForRun(runID, store: store, seconds: 30) == "succeeded")
            for node in try store.nodes(ofRun: runID) { #expect(node.attempts == 1, "\(node.key)") }
            #expect(!cluster.log("second").contains("dead-lettering"))
        }
    }
}

/// The parent process id of `pid`, from /proc.
func parentPID(of pid: pid_t) -> pid_t? {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
    else { return nil }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    return fields.count > 1 ? pid_t(fields[1]) : nil
}

extension Integration {
    @Suite("poison tasks", .serialized)
    @MainActor  // blocking waits here must not starve the cooperative pool the async unit tests need
    struct PoisonTaskTests {
        @Test("a task that kills every worker is dead-lettered after the delivery limit; its node fails saying so, other work goes on")
        func poisonIsDeadLettered() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            // One task per process (one slot, nothing waiting for it): a task sharing a process with the poison, running or
            // waiting, would also count a delivery each time it dies (operations.md says so, and how to isolate such procedures).
            // Only the test worker serves a procedure that kills its own process; it is restarted each time it dies.
            let restarter = TestWorkerRestarter(
                cluster: cluster, arguments: ["--concurrency", "1", "--prefetch", "1", "--delivery-limit", "3"], count: 2)
            defer { restarter.stop() }
            let store = try TestCluster.store()
            defer { store.close() }
            try TestCluster.waitUntil(30, "the test workers to announce test.crash-worker") {
                try store.servedProcedures().contains("test.crash-worker")
            }
            let runID = try TestCluster.submit([
                "name": "poison",
                "nodes": [
                    "poison": ["procedure": "test.crash-worker", "input": [:], "retry": ["attempts": 5]],
                    "needs-poison": ["procedure": "baton.echo", "input": ["p": ["$from": "poison"]]],
                    "fine": ["procedure": "baton.add", "input": ["values": [20, 22]]],
                ],
            ])
            #expect(try TestCluster.waitForRun(runID, store: store, seconds: 90) == "failed")
            let all = try TestCluster.nodes(store, runID)
            #expect(all["poison"]?.status == "failed")
            #expect(all["poison"]?.error?.contains("dead-lettered after 3 deliveries") == true, "\(all["poison"]?.error ?? "")")
            #expect(all["needs-poison"]?.status == "cancelled")
            #expect(all["fine"]?.output == 42)
            #expect(try store.events(ofRun: runID).contains { $0.node == "poison" && $0.kind == "dead_lettered" })

            // The workers keep serving once the poison is gone.
            let next = try TestCluster.submit(["name": "after-poison", "nodes": ["echo": ["procedure": "baton.echo", "input": ["ok": true]]]])
            #expect(try TestCluster.waitForRun(next, store: store, seconds: 30) == "succeeded")
        }
    }
}

extension Integration {
    @Suite("malformed broker messages", .serialized)
    @MainActor  // blocking waits here must not starve the cooperative pool the async unit tests need
    struct MalformedMessageTests {
        @Test("garbage on the task and result queues is dead-lettered and dropped; nothing crashes or loops")
        func garbageIsDeadLettered() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            let coordinator = try cluster.startCoordinator()
            let worker = try cluster.startWorker()
            let store = try TestCluster.store()
            defer { store.close() }
            // A first run proves both are up before the garbage goes in.
            let first = try TestCluster.submit(["name": "before", "nodes": ["a": ["procedure": "baton.echo", "input": [:]]]])
            #expect(try TestCluster.waitForRun(first, store: store, seconds: 30) == "succeeded")

            let amqp = try AMQPConnection(url: TestCluster.amqpURL)
            defer { amqp.close() }
            try amqp.enableConfirms()
            let garbage: [[UInt8]] = [
                Array("not json".utf8), Array(#"{"run": 1}"#.utf8), [0xFF, 0x00, 0xFE],
                Array(#"{"type":"result","run":"x","node":"n","attempt":"one"}"#.utf8),
                // Messages of a version this build does not read.
                Array(#"{"v":2,"run":"x","node":"n","attempt":1,"procedure":"baton.echo","input":{},"pool":"default","priority":0}"#.utf8),
                Array(#"{"v":2,"type":"log","run":"x","node":"n","attempt":1,"message":"hi"}"#.utf8),
            ]
            for body in garbage {
                try amqp.publish(
                    exchange: BatonTopology.tasksExchange, routingKey: BatonTopology.routingKey(pool: "default", procedure: "baton.echo"), body: body)
                try amqp.publish(exchange: "", routingKey: BatonTopology.resultsQueue, body: body)
            }
            // A dead letter that reads as a task but names no real run must be dropped too, not retried forever.
            try amqp.publish(
                exchange: BatonTopology.deadExchange, routingKey: "",
                body: Array(
                    #"{"v": 1, "run": "not-a-uuid", "node": "n", "attempt": 1, "procedure": "baton.echo", "input": {}, "pool": "default", "priority": 0}"#
                        .utf8))
            try amqp.waitForConfirms()

            try TestCluster.waitUntil(30, "the garbage to be dead-lettered and dropped") {
                cluster.log("coordinator").components(separatedBy: "that is not a task").count - 1 >= 2 * garbage.count
            }
            #expect(cluster.log("worker").contains("dead-lettering a malformed task"))
            #expect(cluster.log("worker").contains("task message has version 2; this build of Baton reads version 1 only"))
            #expect(cluster.log("coordinator").contains("dead-lettering a report: report has version 2; this build of Baton reads version 1 only"))
            #expect(coordinator.isRunning && worker.isRunning)
            let after = try TestCluster.submit(["name": "after", "nodes": ["a": ["procedure": "baton.add", "input": ["values": [1, 1]]]]])
            #expect(try TestCluster.waitForRun(after, store: store, seconds: 30) == "succeeded")
            // Nothing loops: the dead-letter queue is drained and stays empty.
            #expect(try amqp.declareQueue(name: BatonTopology.deadLettersQueue, passive: true).messageCount == 0)
        }
    }
}
