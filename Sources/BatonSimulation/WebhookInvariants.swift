import Baton
import BatonStore
import BatonWebhooks

/// The guarantees of webhook delivery, checked at the end of a `--webhooks` seed (after faults
/// healed and time ran on, `ClusterSimulation.drainWebhooks`): every event a webhook matches has
/// exactly one delivery; each delivery's attempts count 1, 2, … with no gap or repeat, its back-off
/// is `DeliveryPolicy`'s, it ended delivered (its last attempt 2xx) or given up (past the give-up
/// age, or its host refused), and nothing was claimed or posted after it ended. The receiver may
/// see a delivery twice (at least once) only where a record was lost or an answer came after the
/// claim's lease: those are counted, any other is a violation.
enum WebhookInvariants {
    /// The webhook kind of an event kind, as migration 23's trigger maps it (written out again here).
    static let kinds: [EventKind: WebhookEventType] = [
        .runSucceeded: .runSucceeded, .runFailed: .runFailed, .runCancelled: .runCancelled, .failed: .nodeFailed,
        .deadLettered: .nodeFailed, .timedOut: .nodeFailed, .retrying: .nodeRetrying, .awaitingSignal: .signalWaiting,
    ]

    /// Broken guarantees, one line each, and the deliveries the receiver took twice.
    static func check(store: MemoryStore, simulation: WebhookSimulation) -> (violations: [String], duplicates: Int) {
        var violations = simulation.violations
        let deliveries = store.deliveryRows()
        let policy = WebhookSimulation.turn.policy
        // Exactly one delivery per matching event and webhook, in the run's partition.
        var outbox: [String: [MemoryDeliveryRow]] = [:]
        for d in deliveries { outbox["\(d.row.webhookID) \(d.row.eventID)", default: []].append(d) }
        var expected: Set<String> = []
        for (runID, events) in store.tables.events.sorted(by: { $0.key < $1.key }) {
            guard let run = store.run(runID) else { continue }
            for event in events {
                guard let kind = event.eventKind, let type = kinds[kind] else { continue }
                for hook in store.tables.webhooks.values.sorted(by: { $0.row.id < $1.row.id }) {
                    guard hook.row.events.contains(type), hook.glob?.matches(run.name) ?? true else { continue }
                    let key = "\(hook.row.id) evt_\(event.id)"
                    let found = outbox[key] ?? []
                    // A timed_out counts only as a node's final event: at most one then.
                    if kind == .timedOut {
                        if found.count > 1 { violations.append("webhook \(hook.row.id): event \(event.id) has \(found.count) deliveries") }
                        if !found.isEmpty { expected.insert(key) }
                        continue
                    }
                    expected.insert(key)
                    if found.count != 1 {
                        violations.append(
                            "webhook \(hook.row.id): event \(event.id) (\(event.kind) of run \(run.name)) has \(found.count) deliveries, not one")
                    } else if found[0].row.type != type.rawValue || found[0].partition != RunPartition.of(runID, count: store.tables.partitions.count)
                    {
                        violations.append(
                            "webhook delivery \(found[0].row.id): type \(found[0].row.type) or partition \(found[0].partition) is wrong")
                    }
                }
            }
        }
        for key in outbox.keys.sorted() where !expected.contains(key) {
            violations.append("webhook delivery \(outbox[key]![0].row.id) (\(key)) matches no event")
        }
        let claims = Dictionary(grouping: store.deliveryClaims, by: \.deliveryID)
        let posts = Dictionary(grouping: simulation.posts, by: \.deliveryID)
        var duplicates = 0
        for d in deliveries {
            let row = d.row
            let name = "webhook delivery \(row.id)"
            let numbers = row.history.map(\.attempt)
            if numbers != Array(1..<(numbers.count + 1)) || row.attempts != numbers.count {
                violations.append("\(name): attempts \(numbers) (attempts column \(row.attempts)) are not 1, 2, … without gaps")
                continue
            }
            guard let last = row.history.last, row.state != "pending" else {
                let p = store.tables.partitions[d.partition]
                violations.append(
                    "\(name): still pending at \(store.now.timeIntervalSince1970) (next attempt at \(row.nextAttemptAt ?? 0), \(row.attempts) attempts; partition \(d.partition) held by \(p.owner ?? "none") until \(p.leaseUntil?.timeIntervalSince1970 ?? 0))"
                )
                continue
            }
            for (k, a) in row.history.enumerated() {
                let isLast = k == row.history.count - 1
                let step = policy.step(attempt: a.attempt, status: a.status, createdAt: row.createdAt, now: a.at)
                if a.error?.contains("BATON_WEBHOOK_HOSTS") == true {
                    if !isLast || row.state != "failed" { violations.append("\(name): a refused host did not give up at once") }
                    continue
                }
                if isLast {
                    if step.state != row.state { violations.append("\(name): ended \(row.state) where the policy says \(step.state)") }
                    continue
                }
                guard case let .retry(after) = step else {
                    violations.append("\(name): attempt \(a.attempt) (\(a.status.map(String.init) ?? "no answer")) was followed by another")
                    continue
                }
                // The next attempt's claims come no earlier than the policy's back-off.
                let early = (claims[row.id] ?? []).filter { $0.attempts == a.attempt && $0.at < a.at + after - 1e-5 }
                if let claim = early.first {
                    violations.append("\(name): attempt \(a.attempt + 1) claimed at \(claim.at), before its back-off of \(after) s after \(a.at)")
                }
            }
            if row.state == "delivered" && row.deliveredAt != last.at { violations.append("\(name): delivered at the wrong time") }
            // Nothing claimed, nor posted, after it ended.
            if let claim = claims[row.id]?.first(where: { $0.at > last.at + 1e-9 }) {
                violations.append("\(name): claimed by \(claim.coordinator) at \(claim.at), after it ended \(row.state) at \(last.at)")
            }
            if let post = posts[row.id]?.first(where: { $0.at > last.at + 1e-9 }) {
                violations.append("\(name): posted by \(post.coordinator) at \(post.at), after it ended \(row.state) at \(last.at)")
            }
            let taken = (posts[row.id] ?? []).filter(\.accepted)
            if taken.count > 1 {
                duplicates += 1
                if !simulation.explained.contains(row.id) {
                    violations.append("\(name): the receiver took it \(taken.count) times, with no record lost and no late answer")
                }
            }
        }
        return (violations, duplicates)
    }
}
