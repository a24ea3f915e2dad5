import Baton
import BatonAMQP
import BatonStore
import Foundation
import Testing

extension Integration {
    /// One connection of a worker failing alone: its publishing connection closed by the broker
    /// while the task connection stays up, so the worker keeps heartbeating and holding its tasks.
    @Suite("a worker's publishing connection closed", .serialized)
    @MainActor  // blocking waits here must not starve the cooperative pool the async unit tests need
    struct PublishConnectionTests {
        /// The broker's forced close reaches the publisher while it reads confirms (it publishes only
        /// for moments), so this guards the whole path (reconnect, publish again, ack) on real services;
        /// a publish failing partway through a batch, which lost reports, is pinned down in
        /// `PublisherStateMachineTests` and `ReportPipelineTests`.
        @Test("closing only the worker's publishing connection while slow nodes run: every node still ends")
        func everyNodeEnds() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            let worker = try cluster.startWorker(concurrency: 4)
            let store = try TestCluster.store()
            defer { store.close() }
            let workerID = try TestCluster.workerID(of: worker, in: store)
            let vhost = try AMQPURL(TestCluster.amqpURL).vhost
            let publishing = "baton-worker-publish \(workerID)"
            let width = 12
            var nodes: [(key: String, value: JSON)] = (0..<width).map { ("nap-\($0)", ["procedure": "baton.sleep", "input": ["seconds": 1.5]]) }
            nodes.append(("join", ["procedure": "baton.echo", "input": .array((0..<width).map { ["$from": .string("nap-\($0)")] })]))
            let runID = try TestCluster.submit(["name": "publish-connection", "nodes": .object(JSONObject(nodes))])
            try TestCluster.waitUntil(30, "naps to be running") {
                try store.nodes(ofRun: runID).filter { $0.status == "running" }.count >= 2
            }

            let before = try RabbitMQControl.connections(vhost: vhost)
            let closed = try #require(before.first { $0.name == publishing }, "no connection named '\(publishing)' in \(before)")
            let consumer = try #require(before.first { $0.name == "baton-worker \(workerID)" }, "no task connection in \(before)")
            try RabbitMQControl.close(closed)

            #expect(try TestCluster.waitForRun(runID, store: store, seconds: 60) == "succeeded")
            #expect(try store.nodes(ofRun: runID).allSatisfy { $0.status == "succeeded" })
            let after = try RabbitMQControl.connections(vhost: vhost)
            #expect(after.contains(consumer), "the task connection was left alone")
            #expect(after.contains { $0.name == publishing && $0.pid != closed.pid }, "the publisher connected again")
            #expect(cluster.log("worker").contains("worker publisher:"), "the worker logged the lost connection")
        }
    }
}
