import Baton
import BatonAMQP
import BatonStore
import Foundation
import Testing

extension Integration {
    /// A task queue deleted or purged under a backlog (issue 31): the tasks it held are gone, their
    /// nodes still `queued`. The coordinator finds them and publishes them again under the same
    /// attempt; a worker whose queue was deleted under it consumes it again once it exists.
    @Suite("a task queue deleted or purged under load", .serialized)
    @MainActor  // blocking waits here must not starve the cooperative pool the async unit tests need
    struct LostTaskTests {
        static let queue = BatonTopology.taskQueue(routingKey: BatonTopology.routingKey(pool: "default", procedure: "baton.sleep"))

        /// 30 short sleeps on a worker with 2 slots; once a backlog waits in the queue, `lose` it.
        /// The run must end, succeeded, within 60 s of the loss (the figure).
        func backlogSurvives(_ what: String, _ lose: (String, String) throws -> Void) throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            let worker = try cluster.startWorker(concurrency: 2)
            let store = try TestCluster.store()
            defer { store.close() }
            let workerID = try TestCluster.workerID(of: worker, in: store)
            let vhost = try AMQPURL(TestCluster.amqpURL).vhost
            // Found before the backlog exists: each rabbitmqctl takes seconds on a busy machine, and the
            // loss must land while tasks still wait in the queue.
            let consumer = try #require(try RabbitMQControl.connections(vhost: vhost).first { $0.name == "baton-worker \(workerID)" })
            let nodes: [(key: String, value: JSON)] = (0..<30).map { ("nap-\($0)", ["procedure": "baton.sleep", "input": ["seconds": 0.5]]) }
            let runID = try TestCluster.submit(["name": .string("lost-\(what)"), "nodes": .object(JSONObject(nodes))])
            try TestCluster.waitUntil(30, "a backlog of queued naps") {
                let rows = try store.nodes(ofRun: runID)
                return rows.contains { $0.status == "running" } && rows.filter { $0.status == "queued" }.count >= 20
            }
            try lose(Self.queue, vhost)
            let lost = Date()
            #expect(try TestCluster.waitForRun(runID, store: store, seconds: 60) == "succeeded", "\(what): the run ended")
            #expect(Date().timeIntervalSince(lost) < 60, "\(what): within 60 s of the loss")
            #expect(try store.nodes(ofRun: runID).allSatisfy { $0.status == "succeeded" && $0.attempts == 1 }, "every node succeeded in attempt 1")
            #expect(cluster.log("coordinator").contains("lost task(s) again under the same attempt"), "the coordinator said what it did")
            // The worker kept its connection (what it ran and held was not given back).
            #expect(try RabbitMQControl.connections(vhost: vhost).contains(consumer), "the worker's task connection was kept")
        }

        /// A worker with 1 slot takes 4 tasks (its prefetch): 3 wait in it for the slot, so the queue
        /// is empty while they wait past the grace (10 s). Its heartbeats list them: none is taken for
        /// lost and published again (before, all went out again, and a copy could run twice).
        /// On a database and vhost of its own: runs other tests left unfinished, and their tasks, would
        /// otherwise share the queue and the coordinator's log.
        @Test("tasks a worker holds waiting for its slot are not taken for lost, however empty their queue")
        func heldTasksAreNotLost() throws {
            let environment = try QuorumQueueTests.fresh("baton_lost_held")
            let migrated = try TestCluster.cli(["migrate", "--partitions", "4"], environment: environment)
            try #require(migrated.status == 0, "\(migrated.stderr)")
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.start(["coordinator"], name: "coordinator", environment: environment)
            try cluster.start(["worker", "--demo", "--concurrency", "1"], name: "worker", environment: environment)
            let store = try Store(url: environment["BATON_DATABASE_URL"]!)
            defer { store.close() }
            let nodes: [(key: String, value: JSON)] = (0..<3).map { ("nap-\($0)", ["procedure": "baton.sleep", "input": ["seconds": 6]]) }
            let file = try GraphFixtures.write(["name": "held", "nodes": .object(JSONObject(nodes))])
            let submitted = try TestCluster.cli(["submit", file, "--json"], environment: environment)
            let runID = try #require(try JSONParser.parse(submitted.stdout)["run_id"]?.stringValue, "\(submitted.stderr)")
            #expect(try TestCluster.waitForRun(runID, store: store, seconds: 40) == "succeeded")
            #expect(try store.nodes(ofRun: runID).allSatisfy { $0.attempts == 1 })
            #expect(!cluster.log("coordinator").contains("lost task(s) again"), "nothing was published again")
        }

        @Test("rabbitmqctl delete_queue under a backlog of 30 sleeps on 2 slots: the run succeeds within 60 s")
        func deletedQueue() throws {
            try backlogSurvives("delete") { try RabbitMQControl.deleteQueue($0, vhost: $1) }
        }

        @Test("rabbitmqctl purge_queue under a backlog of 30 sleeps on 2 slots: the run succeeds within 60 s")
        func purgedQueue() throws {
            try backlogSurvives("purge") { try RabbitMQControl.purgeQueue($0, vhost: $1) }
        }
    }
}
