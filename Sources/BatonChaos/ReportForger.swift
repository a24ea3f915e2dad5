import Baton
import BatonAMQP
import BatonStore
import Foundation

/// Publishes results forged by hand, as anyone holding the broker's login could: for nodes running
/// now (run id, node key and attempt are what the dashboard shows), a result claiming the output
/// `{"forged": true}` with no attempt token and one with a wrong token. The coordinators must refuse
/// both: the final check finds any that became an output, and their `baton_reports_refused_total`
/// must count no more refusals than were forged.
struct ReportForger {
    let amqpURL: String
    let partitions: Int

    /// Forges two results for each of up to `limit` running nodes of `runID`; returns how many it published.
    func forge(runID: String, nodes: [NodeRow], limit: Int) -> Int {
        let running = nodes.filter { $0.status == NodeStatus.running.rawValue }.prefix(limit)
        guard !running.isEmpty else { return 0 }
        var published = 0  // counted as sent, confirmed or not: the check is that no more are refused
        do {
            let amqp = try AMQPConnection(url: amqpURL)
            defer { amqp.close() }
            try amqp.enableConfirms()
            for node in running {
                let result = AttemptResult<EncodedJSON>(
                    key: node.key, attempt: node.attempts, outcome: .succeeded(EncodedJSON(["forged": true] as JSON)), worker: "forger",
                    startedAt: Date(), finishedAt: Date())
                var forged = ReportMessage.result(runID: runID, result)
                for token in [nil, AttemptToken.random().text] {
                    forged.attemptToken = token
                    try amqp.publish(
                        exchange: BatonTopology.reportsExchange,
                        routingKey: BatonTopology.reportKey(partition: RunPartition.of(runID, count: partitions)),
                        body: forged.encoded())
                    published += 1
                }
            }
            try amqp.waitForConfirms(timeout: 5)
            return published
        } catch {
            say("could not forge reports: \(error)")
            return published
        }
    }
}
