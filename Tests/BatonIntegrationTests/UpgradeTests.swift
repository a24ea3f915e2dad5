import Baton
import BatonAMQP
import BatonPostgres
import Foundation
import Testing

@testable import BatonStore

extension Integration {
    /// Upgrading from a Baton before partitions: its schema, its runs, and its workers still
    /// running while the new coordinators take over.
    @Suite("upgrading from before partitions", .serialized)
    @MainActor  // blocking waits here must not starve the cooperative pool the async unit tests need
    struct UpgradeTests {
        @Test("a database from before partitions: the coordinator asks for baton migrate, which adds them, and its runs go on")
        func schemaFromBeforePartitions() throws {
            let url = try TestCluster.freshDatabase(named: "baton_upgrade_test")
            let environment = ["BATON_DATABASE_URL": url]

            // The schema as the last Baton before partitions left it (migration 10), with runs submitted.
            let old = try Store(url: url)
            defer { old.close() }
            #expect(try old.migrate(partitions: nil, through: 10) == Array(1...10))
            let graph = try GraphDecoder().decode(
                Array(
                    (#"{"name": "before", "nodes": {"a": {"procedure": "baton.add", "input": {"values": [1, 2]}},"#
                        + #" "b": {"procedure": "baton.add", "input": {"values": [{"$from": "a"}, 10]}}}}"#).utf8))
            let sql = try PGConnection(url: url)
            defer { sql.close() }
            let runs = try (0..<4).map { _ in try LegacySubmit.insert(graph, sql: sql) }

            let refused = try TestCluster.cli(["coordinator"], environment: environment)
            #expect(refused.status == 1)
            #expect(
                refused.stderr == "baton: the database's Baton schema is at version 10, this baton needs 27: run `baton migrate`\n",
                "\(refused.stderr)")

            let migrated = try TestCluster.cli(["migrate", "--json"], environment: environment)
            #expect(migrated.status == 0, "\(migrated.stderr)")
            let report = try JSONParser.parse(migrated.stdout)
            #expect(report["applied"] == [11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27], "\(migrated.stdout)")
            #expect(report["partitions"] == 64, "\(migrated.stdout)")

            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.start(["coordinator"], name: "coordinator", environment: environment)
            try cluster.startWorker()
            for id in runs {
                #expect(try TestCluster.waitForRun(id, store: old, seconds: 30) == "succeeded")
                #expect(try old.nodes(ofRun: id).first { $0.key == "b" }?.output == 13)
            }
        }

        /// Such a worker is from before attempt tokens too: it echoes none, so the coordinator runs in
        /// the upgrade window (`--accept-untokened-reports`, docs/operations.md).
        @Test("a worker from before partitions (heartbeats on the shared queue, reports to baton.results) keeps its lease")
        func workerFromBeforePartitions() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.start(["coordinator", "--lease", "2", "--accept-untokened-reports"], name: "coordinator")
            let worker = "legacy-\(UUID().uuidString.prefix(8))"
            let amqp = try AMQPConnection(url: TestCluster.amqpURL)
            defer { amqp.close() }
            try BatonTopology.declareCommon(on: amqp)
            let queue = try BatonTopology.declareTaskQueue(pool: "legacy", procedure: "legacy.job", on: amqp)
            _ = try amqp.purgeQueue(name: queue)
            try amqp.enableConfirms()
            try amqp.setPrefetch(1)
            try amqp.consume(queue: queue)
            // What such a worker sends: to the durable heartbeat queue, by the default exchange.
            let heartbeat = WorkerHeartbeat(
                id: worker, host: "legacy", pid: 1, pools: ["legacy"], procedures: ["legacy.job"], slots: 1, startedAt: Date(), interval: 0.5)
            func beat() throws {
                try amqp.publish(exchange: "", routingKey: BatonTopology.heartbeatsQueue, body: heartbeat.encoded(), persistent: false)
            }
            func report(_ message: ReportMessage) throws {
                try amqp.publish(exchange: "", routingKey: BatonTopology.resultsQueue, body: message.encoded())
                try amqp.waitForConfirms()
            }
            try beat()

            let store = try TestCluster.store()
            defer { store.close() }
            let graph = try GraphDecoder().decode(
                Array(
                    (#"{"name": "legacy", "nodes": {"job": {"procedure": "legacy.job", "pool": "legacy", "input": {"n": 1}},"#
                        + #" "next": {"procedure": "legacy.job", "pool": "legacy", "input": {"from": {"$from": "job"}}}}}"#).utf8))
            let runID = try store.submit(graph).id

            // Each task runs for three leases while the worker heartbeats the old way, then reports the old way.
            for _ in 0..<2 {
                var delivery: AMQPDelivery?
                let deadline = Date().addingTimeInterval(30)
                while delivery == nil && Date() < deadline {
                    delivery = try amqp.nextDelivery(timeout: 0.5)
                    try beat()
                }
                let task = try TaskDispatch(decoding: try #require(delivery, "a task for the legacy worker").body)
                let started = Date()
                try report(.started(runID: task.runID, key: task.key, attempt: task.attempt, worker: worker, at: started))
                while Date().timeIntervalSince(started) < 6 {
                    try beat()
                    usleep(500_000)
                }
                let result = AttemptResult<EncodedJSON>(
                    key: task.key, attempt: task.attempt, outcome: .succeeded(EncodedJSON(task.input)), worker: worker,
                    startedAt: started, finishedAt: Date())
                try report(.result(runID: task.runID, result))
                try amqp.ack(deliveryTag: delivery!.deliveryTag)
            }

            #expect(try TestCluster.waitForRun(runID, store: store, seconds: 30) == "succeeded")
            let nodes = try TestCluster.nodes(store, runID)
            #expect(nodes["job"]?.attempts == 1)
            #expect(nodes["next"]?.attempts == 1)
            #expect(nodes["next"]?.output == ["from": ["n": 1]])
            #expect(try !store.events(ofRun: runID).contains { $0.kind == "lease_expired" })
        }
    }
}
