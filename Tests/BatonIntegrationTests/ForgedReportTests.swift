import Baton
import BatonAMQP
import Foundation
import Testing

extension Integration {
    /// Reports bound to their attempt (issue 31, part 2), on the real services: whoever holds the
    /// broker's login knows what the dashboard shows (run id, node key, attempt 1) but not the
    /// attempt's token, and what they publish to `baton.reports` changes nothing.
    @Suite("reports forged by hand", .serialized)
    @MainActor
    struct ForgedReportTests {
        @Test("a result forged for a running baton.sleep node is refused and counted; the worker's result becomes its output")
        func forgedResultIsRefused() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            let port = HTTPProbe.freePort()
            try cluster.start(["coordinator", "--metrics", "127.0.0.1:\(port)"], name: "coordinator")
            try cluster.startWorker()
            let store = try TestCluster.store()
            defer { store.close() }
            let runID = try TestCluster.submit(["name": "forged", "nodes": ["s": ["procedure": "baton.sleep", "input": ["seconds": 3]]]])
            try TestCluster.waitUntil(20, "the sleep to run") { try TestCluster.nodes(store, runID)["s"]?.status == "running" }

            let partitions = try TestCluster.sql().query("select count(*)::int as n from baton.partitions").int(0, "n") ?? 0
            let amqp = try AMQPConnection(url: TestCluster.amqpURL)
            defer { amqp.close() }
            try amqp.enableConfirms()
            let forged = AttemptResult<EncodedJSON>(
                key: "s", attempt: 1, outcome: .succeeded(EncodedJSON(["forged": true] as JSON)), worker: "forger",
                startedAt: Date(), finishedAt: Date())
            var withoutToken = ReportMessage.result(runID: runID, forged)
            var withWrongToken = withoutToken
            withWrongToken.attemptToken = AttemptToken.random().text
            withoutToken.attemptToken = nil
            for report in [withoutToken, withWrongToken] {
                try amqp.publish(
                    exchange: BatonTopology.reportsExchange,
                    routingKey: BatonTopology.reportKey(partition: RunPartition.of(runID, count: partitions)),
                    body: report.encoded())
            }
            try amqp.waitForConfirms()
            try TestCluster.waitUntil(20, "both forged reports to be refused") {
                let metrics = HTTPProbe.get(port: port, "/metrics")?.body ?? ""
                return HTTPProbe.sample(metrics, "baton_reports_refused_total", #"reason="missing_token""#) == 1
                    && HTTPProbe.sample(metrics, "baton_reports_refused_total", #"reason="wrong_token""#) == 1
            }
            #expect(try TestCluster.nodes(store, runID)["s"]?.status == "running", "the forged result did not end the node")

            #expect(try TestCluster.waitForRun(runID, store: store, seconds: 30) == "succeeded")
            let node = try #require(try TestCluster.nodes(store, runID)["s"])
            #expect(node.output?["slept"]?.numberValue == 3, "the worker's result is the output: \(node.output?.serialized() ?? "none")")
            #expect(node.worker != "forger")
            #expect(node.attempts == 1)
            #expect(cluster.log("coordinator").contains("without their attempt's token"), "the refusal is logged")
        }
    }
}
