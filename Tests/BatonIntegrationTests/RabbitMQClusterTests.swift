import Baton
import BatonStore
import Foundation
import Testing

extension Integration {
    /// A three-node RabbitMQ cluster on 127.0.0.1 (deploy/local/rabbit-cluster.sh) with quorum queues:
    /// the node leading Baton's task queue is killed with -9 mid-run.
    @Suite("RabbitMQ cluster failover", .serialized)
    @MainActor  // blocking waits here must not starve the cooperative pool the async unit tests need
    struct RabbitMQClusterTests {
        @Test("kill -9 of the node leading the task queue mid-run: the run finishes, nothing lost or duplicated; the node comes back")
        func leaderKilledMidRun() throws {
            // A cluster of its own, with empty queues.
            try ProjectScript.run("rabbit-cluster.sh", ["reset"])
            try ProjectScript.run("rabbit-cluster.sh", ["up"])
            defer { _ = try? ProjectScript.run("rabbit-cluster.sh", ["down"]) }
            let urls = try ProjectScript.run("rabbit-cluster.sh", ["urls"])
            #expect(urls.split(separator: ",").count == 3, "\(urls)")

            let environment = ["BATON_DATABASE_URL": try TestCluster.freshDatabase(named: "baton_cluster_test"), "BATON_AMQP_URL": urls]
            let migrated = try TestCluster.cli(["migrate", "--partitions", "4", "--queue-type", "quorum"], environment: environment)
            try #require(migrated.status == 0, "\(migrated.stderr)")

            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.start(["coordinator"], name: "coordinator", environment: environment)
            for i in 1...2 {
                try cluster.start(["worker", "--concurrency", "4"], name: "worker-\(i)", environment: environment)
            }
            // 40 slow nodes (8 slots: about 5 s of work) and a sum that needs every one of them.
            let file = try GraphFixtures.write(GraphFixtures.slowSum(name: "cluster", count: 40, seconds: 1.0))
            let submitted = try TestCluster.cli(["submit", file, "--json"], environment: environment)
            let runID = try #require(try JSONParser.parse(submitted.stdout)["run_id"]?.stringValue, "\(submitted.stderr)")

            let store = try Store(url: environment["BATON_DATABASE_URL"]!)
            defer { store.close() }
            try TestCluster.waitUntil(60, "some slow nodes to succeed") {
                try store.nodes(ofRun: runID).filter { $0.status == "succeeded" }.count >= 8
            }
            let leader = try ProjectScript.run("rabbit-cluster.sh", ["leader", "baton.tasks.default:baton.sleep"])
            try ProjectScript.run("rabbit-cluster.sh", ["kill", leader])
            let succeededAtKill = try store.nodes(ofRun: runID).filter { $0.status == "succeeded" }.count
            #expect(succeededAtKill < 41, "the run ended before the kill")

            #expect(try TestCluster.waitForRun(runID, store: store, seconds: 120) == "succeeded")
            let all = try store.nodes(ofRun: runID)
            #expect(all.count == 41)
            #expect(all.allSatisfy { $0.status == "succeeded" }, "\(all.filter { $0.status != "succeeded" }.map(\.key))")
            #expect(all.first { $0.key == "count" }?.output == 40)
            // One recorded result per node: the events say each succeeded once.
            let succeededEvents = try store.events(ofRun: runID).filter { $0.kind == "succeeded" }
            #expect(succeededEvents.count == 41, "\(succeededEvents.count) succeeded events")
            #expect(Set(succeededEvents.compactMap(\.node)).count == 41)

            // The killed node comes back into the cluster, and the queue has a leader again.
            try ProjectScript.run("rabbit-cluster.sh", ["start", leader])
            let status = try ProjectScript.run("rabbit-cluster.sh", ["status"])
            #expect(status.components(separatedBy: "running").count - 1 >= 3, "\(status)")
            try TestCluster.waitUntil(60, "the task queue to have a leader") {
                (try? ProjectScript.run("rabbit-cluster.sh", ["leader", "baton.tasks.default:baton.sleep"])) != nil
            }
        }
    }
}
