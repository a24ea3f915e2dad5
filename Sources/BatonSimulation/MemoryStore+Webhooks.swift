import Baton
import BatonStore
import Foundation

/// Webhooks in the memory twin, as `Store+Webhooks` and the `baton.events` trigger (migration 23)
/// keep them: an event of a webhook's kinds, of a run whose name its glob matches, becomes one
/// delivery per webhook in the event's own transaction, in the run's partition; the holder of that
/// partition claims it under a lease (`next_attempt_at` moves on), records each attempt once, and
/// the delivery ends delivered or failed (given up).
extension MemoryStore: DeliveryStore {
    /// The webhook kind an event of `kind` is, as the trigger maps it (nil: none).
    static func webhookType(ofEventKind kind: EventKind?) -> WebhookEventType? {
        switch kind {
        case .runSucceeded: .runSucceeded
        case .runFailed: .runFailed
        case .runCancelled: .runCancelled
        case .failed, .deadLettered, .timedOut: .nodeFailed
        case .retrying: .nodeRetrying
        case .awaitingSignal: .signalWaiting
        default: nil
        }
    }

    /// Stores `draft`, as `Store.addWebhook` does (created now, by `createdBy`).
    @discardableResult
    public func addWebhook(_ draft: WebhookDraft, createdBy: String? = nil) -> WebhookRow {
        let row = WebhookRow(
            id: nextWebhookID, url: draft.url, events: draft.events, nameGlob: draft.nameGlob?.text, format: draft.format,
            createdAt: now.timeIntervalSince1970, createdBy: createdBy, disabledAt: nil)
        nextWebhookID += 1
        tables.webhooks[row.id] = MemoryWebhookRow(row: row, secret: draft.secret, glob: draft.nameGlob)
        return row
    }

    /// Deletes webhook `id` with its deliveries, as `Store.deleteWebhook` does; false when there is none.
    @discardableResult
    public func deleteWebhook(id: Int64) -> Bool {
        guard tables.webhooks.removeValue(forKey: id) != nil else { return false }
        tables.deliveries = tables.deliveries.filter { $0.value.row.webhookID != id }
        return true
    }

    /// Every webhook, by id.
    public func webhooks() -> [WebhookRow] { tables.webhooks.keys.sorted().map { tables.webhooks[$0]!.row } }

    /// Every delivery (the outbox), by id, with its attempts.
    public func deliveryRows() -> [MemoryDeliveryRow] { tables.deliveries.keys.sorted().map { tables.deliveries[$0]! } }

    /// The trigger `baton.enqueue_webhooks` for `event`, just appended to `tables`.
    func enqueueWebhooks(to tables: inout MemoryTables, event: MemoryEventRow) {
        guard let type = Self.webhookType(ofEventKind: event.eventKind), let run = tables.runs[event.runID] else { return }
        let hooks = tables.webhooks.keys.sorted().compactMap { tables.webhooks[$0] }.filter { hook in
            hook.row.disabledAt == nil && hook.row.events.contains(type) && (hook.glob?.matches(run.name) ?? true)
        }
        if hooks.isEmpty { return }
        var node = JSON.null
        if let key = event.node {
            let row = tables.nodes[event.runID]?[key]
            // A timed_out followed by a retry is not a failure; the final one leaves the node failed.
            if event.eventKind == .timedOut && row?.status != .failed { return }
            node = .object(
                JSONObject([
                    ("key", .string(key)), ("procedure", row.map { .string($0.procedure) } ?? .null),
                    ("attempt", .int(event.detail["attempt"]?.intValue.map(Int64.init) ?? Int64(row?.attempts ?? 0))),
                    ("error", event.detail["error"]?.stringValue.map(JSON.string) ?? .null),
                ]))
        }
        let eventID = "evt_\(event.id)"
        let body = JSON.object(
            JSONObject([
                ("id", .string(eventID)), ("type", .string(type.rawValue)), ("at", .string(MemoryTimestamp.text(event.at))),
                (
                    "run",
                    .object(
                        JSONObject([
                            ("id", .string(run.id)), ("name", .string(run.name)), ("status", .string(run.status.rawValue)),
                            ("error", run.error.map(JSON.string) ?? .null),
                        ]))
                ),
                ("node", node), ("detail", event.detail),
            ])
        ).serialized()
        let partition = RunPartition.of(event.runID, count: max(1, tables.partitions.count))
        let created = now.timeIntervalSince1970
        for hook in hooks where !tables.deliveries.values.contains(where: { $0.row.webhookID == hook.row.id && $0.row.eventID == eventID }) {
            let id = nextDeliveryID
            nextDeliveryID += 1
            tables.deliveries[id] = MemoryDeliveryRow(
                row: DeliveryRow(
                    id: id, webhookID: hook.row.id, eventID: eventID, type: type.rawValue, runID: run.id, state: "pending", attempts: 0,
                    createdAt: created, nextAttemptAt: created, deliveredAt: nil, lastStatus: nil, lastError: nil, history: []),
                partition: partition, body: body)
        }
    }

    public func claimDeliveries(coordinator: String, limit: Int, lease: Double) throws -> (now: Double, deliveries: [ClaimedDelivery]) {
        let now = self.now
        let t = now.timeIntervalSince1970
        let held = Set(tables.partitions.filter { $0.owner == coordinator && ($0.leaseUntil.map { $0 > now } ?? false) }.map(\.partition))
        let due = tables.deliveries.values.filter { d in
            d.row.state == "pending" && (d.row.nextAttemptAt.map { $0 <= t } ?? false) && held.contains(d.partition)
        }.sorted { ($0.row.nextAttemptAt!, $0.row.id) < ($1.row.nextAttemptAt!, $1.row.id) }.prefix(max(0, limit))
        let until = MemoryTimestamp.rounded(now.addingTimeInterval(lease)).timeIntervalSince1970
        var claimed: [ClaimedDelivery] = []
        for d in due.sorted(by: { $0.row.id < $1.row.id }) {
            tables.deliveries[d.row.id]!.row.nextAttemptAt = until
            deliveryClaims.append(MemoryDeliveryClaim(deliveryID: d.row.id, coordinator: coordinator, at: t, until: until, attempts: d.row.attempts))
            guard let hook = tables.webhooks[d.row.webhookID], hook.row.disabledAt == nil else { continue }
            claimed.append(
                ClaimedDelivery(
                    id: d.row.id, webhookID: d.row.webhookID, eventID: d.row.eventID, type: d.row.type, body: d.body, attempts: d.row.attempts,
                    createdAt: d.row.createdAt, url: hook.row.url, secret: hook.secret, format: hook.row.format))
        }
        return (t, claimed)
    }

    @discardableResult
    public func recordDeliveryAttempt(
        _ id: Int64, attempt: Int, status: Int?, error: String?, durationMs: Int, coordinator: String, step: DeliveryStep
    ) throws -> Bool {
        guard var d = tables.deliveries[id], d.row.state == "pending", !d.row.history.contains(where: { $0.attempt == attempt }) else {
            return false
        }
        let now = self.now
        let t = now.timeIntervalSince1970
        let error = error.map { String($0.replacingOccurrences(of: "\u{0}", with: "").prefix(1000)) }
        d.row.history.append(
            DeliveryRow.Attempt(attempt: attempt, at: t, status: status, error: error, durationMs: durationMs, coordinator: coordinator))
        d.row.history.sort { $0.attempt < $1.attempt }
        d.row.attempts = attempt
        d.row.lastStatus = status
        d.row.lastError = error
        d.row.state = step.state
        if case let .retry(after) = step {
            d.row.nextAttemptAt = MemoryTimestamp.rounded(now.addingTimeInterval(after)).timeIntervalSince1970
        } else {
            d.row.nextAttemptAt = nil
        }
        d.row.deliveredAt = step == .delivered ? t : nil
        tables.deliveries[id] = d
        return true
    }

    @discardableResult
    public func pruneDeliveries(olderThan age: Double) throws -> Int {
        let cutoff = now.timeIntervalSince1970 - age
        let gone = tables.deliveries.values.filter { $0.row.state != "pending" && $0.row.createdAt < cutoff }.map(\.row.id)
        for id in gone { tables.deliveries[id] = nil }
        return gone.count
    }
}
