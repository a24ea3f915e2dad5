import Baton
import BatonPostgres
import BatonStore
import BatonWebhooks
import Foundation
import Testing

@testable import BatonSimulation

/// Webhook delivery keeps the store contract (`DeliveryStore`): the twin's outbox is filled as the
/// `baton.events` trigger fills PostgreSQL's (kinds and name globs), and claims, records and prunes
/// answer the same. In the partition suite: claims depend on partition leases, which it resets.
extension PartitionContractTests {
    /// One side: its delivery store, how it adds and deletes webhooks, and its deliveries.
    struct DeliverySide {
        let store: any DeliveryStore
        let add: (WebhookDraft) throws -> Int64
        let delete: (Int64) throws -> Void
        let rows: () throws -> [DeliveryRow]
    }

    static func deliverySide(_ backend: ContractBackend) throws -> DeliverySide {
        if let memory = backend.memory {
            return DeliverySide(
                store: memory, add: { memory.addWebhook($0).id }, delete: { memory.deleteWebhook(id: $0) },
                rows: { memory.deliveryRows().map(\.row) })
        }
        let store = try Store(url: ContractBackend.databaseURL)
        let audit = AuditEntry(action: "webhook.test")
        let sql = try PGConnection(url: ContractBackend.databaseURL)
        defer { sql.close() }
        try sql.execute("delete from baton.webhooks where url like 'http://contract.sim/%'")
        return DeliverySide(
            store: store, add: { try store.addWebhook($0, audit: audit).id }, delete: { _ = try store.deleteWebhook(id: $0, audit: audit) },
            rows: { try store.deliveries(webhookID: nil, limit: 1000).filter { $0.eventID.hasPrefix("evt_") }.reversed() })
    }

    /// What happened, each side in its own words made comparable: webhooks and runs by their order.
    @Test func theOutboxIsFilledClaimedRecordedAndPrunedTheSame() throws {
        var results: [[String]] = []
        for backend in [try ContractBackend.postgres(), try ContractBackend.memory()] {
            try Self.reset(backend)
            let side = try Self.deliverySide(backend)
            var hooks: [Int64] = []
            let specs = [("run.failed,run.succeeded", "whk-*"), ("node.failed", "whk-*"), ("all", "whk-a?"), ("run.failed", "other-*")]
            for (i, (events, glob)) in specs.enumerated() {
                let draft = try WebhookDraft.make(
                    url: "http://contract.sim/\(i)", events: events, nameGlob: glob, secret: "contract-secret-0001", format: nil
                ).get()
                hooks.append(try side.add(draft))
            }
            var runs: [String] = []
            defer {
                for id in hooks { try? side.delete(id) }
                backend.finish(runs)
            }
            for name in ["whk-ab", "whk-x", "zzz"] {
                runs.append(try backend.submit(try StoreContractTests.graph(#"{"name": "\#(name)", "nodes": {"a": {"procedure": "p"}}}"#)))
                try backend.store.failRun(runs.last!, error: "stopped")
            }
            var seen: [String] = []
            var byID: [Int64: String] = [:]
            let mine = Set(hooks)
            func outbox() throws -> [DeliveryRow] { try side.rows().filter { mine.contains($0.webhookID) } }
            for row in try outbox() {
                let name = "w\(hooks.firstIndex(of: row.webhookID)!)/r\(runs.firstIndex(of: row.runID ?? "") ?? -1)"
                byID[row.id] = name
                seen.append("\(name) \(row.type) \(row.state) \(row.attempts)")
            }
            seen.sort()
            let parts = Set(runs.prefix(2).map { RunPartition.of($0, count: 64) })
            let taken = try backend.store.acquirePartitions(Array(parts), coordinator: "c1", leaseSeconds: 30)
            seen.append("took \(taken.count == parts.count)")
            func claim(_ who: String, limit: Int = 10, lease: Double = 30) throws -> String {
                let got = try side.store.claimDeliveries(coordinator: who, limit: limit, lease: lease).deliveries
                for delivery in got {
                    // The body: the event as the trigger writes it.
                    let body = try JSONParser.parse(delivery.body)
                    let run = body["run"]
                    seen.append(
                        "\(byID[delivery.id] ?? "?") body \(body["type"]?.stringValue ?? "-") \(run?["name"]?.stringValue ?? "-") \(run?["status"]?.stringValue ?? "-") \(run?["error"]?.stringValue ?? "-") \(body["node"] == .null) \(body["id"]?.stringValue == delivery.eventID) \(delivery.url) \(delivery.secret)"
                    )
                }
                return "\(who) claims " + got.map { "\(byID[$0.id] ?? "?")#\($0.attempts + 1)" }.sorted().joined(separator: " ")
            }
            seen.append(try claim("nobody"))
            let ids = byID.sorted { $0.value < $1.value }.map(\.key)  // w0/r0, w0/r1, w2/r0
            seen.append(try claim("c1", limit: 2))  // the oldest: the first run's
            seen.append(try claim("c1", lease: -1))  // leased and run out at once
            seen.append(try claim("c1"))
            seen.append(try claim("c1"))
            func record(_ id: Int64, _ attempt: Int, _ status: Int?, _ step: DeliveryStep) throws -> String {
                let done = try side.store.recordDeliveryAttempt(
                    id, attempt: attempt, status: status, error: status == nil ? "timed out\u{0}" : nil, durationMs: 5, coordinator: "c1", step: step)
                return "record \(byID[id]!)#\(attempt) \(step.state): \(done)"
            }
            seen.append(try record(ids[0], 1, 500, .retry(after: -1)))
            seen.append(try record(ids[0], 1, 200, .delivered))
            seen.append(try record(ids[1], 1, 204, .delivered))
            seen.append(try record(ids[1], 2, 204, .delivered))
            seen.append(try record(ids[2], 1, nil, .giveUp))
            seen.append(try claim("c1"))
            seen.append(try record(ids[0], 2, 201, .delivered))
            for row in try outbox() {
                let history = row.history.map { "\($0.attempt):\($0.status.map(String.init) ?? "-"):\($0.error ?? "-"):\($0.coordinator ?? "-")" }
                seen.append(
                    "\(byID[row.id]!) \(row.state) \(row.attempts) last \(row.lastStatus.map(String.init) ?? "-") next \(row.nextAttemptAt != nil) delivered \(row.deliveredAt != nil) \(history)"
                )
            }
            seen.append("pruned young \(try side.store.pruneDeliveries(olderThan: 3600))")
            seen.append("pruned \(try side.store.pruneDeliveries(olderThan: -60)), left \(try outbox().count)")
            results.append(seen)
        }
        #expect(results[0] == results[1])
        #expect(
            results[1] == [
                "w0/r0 run.failed pending 0", "w0/r1 run.failed pending 0", "w2/r0 run.failed pending 0", "took true", "nobody claims ",
                "w0/r0 body run.failed whk-ab failed stopped true true http://contract.sim/0 contract-secret-0001",
                "w2/r0 body run.failed whk-ab failed stopped true true http://contract.sim/2 contract-secret-0001", "c1 claims w0/r0#1 w2/r0#1",
                "w0/r1 body run.failed whk-x failed stopped true true http://contract.sim/0 contract-secret-0001", "c1 claims w0/r1#1",
                "w0/r1 body run.failed whk-x failed stopped true true http://contract.sim/0 contract-secret-0001", "c1 claims w0/r1#1",
                "c1 claims ", "record w0/r0#1 pending: true", "record w0/r0#1 delivered: false", "record w0/r1#1 delivered: true",
                "record w0/r1#2 delivered: false", "record w2/r0#1 failed: true",
                "w0/r0 body run.failed whk-ab failed stopped true true http://contract.sim/0 contract-secret-0001", "c1 claims w0/r0#2",
                "record w0/r0#2 delivered: true", "w0/r0 delivered 2 last 201 next false delivered true [\"1:500:-:c1\", \"2:201:-:c1\"]",
                "w2/r0 failed 1 last - next false delivered false [\"1:-:timed out:c1\"]",
                "w0/r1 delivered 1 last 204 next false delivered true [\"1:204:-:c1\"]", "pruned young 0", "pruned 3, left 0",
            ], "\(results[1])")
    }
}
