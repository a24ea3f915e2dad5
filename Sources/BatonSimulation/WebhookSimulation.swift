import BatonStore
import BatonWebhooks
import Foundation

/// Webhook delivery in the cluster simulator (`baton-sim --webhooks`): each coordinator runs
/// delivery turns as `WebhookDelivery` does, carrying out `DeliveryTurn`'s decisions against the
/// memory twin's outbox, split in two steps (claim and post; then, once the answers are in, record)
/// so that other coordinators move in between. A seeded receiver answers 2xx, 5xx or 404, times out,
/// refuses the connection, or answers so late (a stalled process) that the claim's lease ran out;
/// a record can be lost to a store fault, a cut from the store or the coordinator's crash. What it
/// saw is checked by `WebhookInvariants`.
final class WebhookSimulation {
    /// What the receiver saw of one post.
    struct Post {
        let deliveryID: Int64
        let attempt: Int
        let coordinator: String
        let at: Double
        /// Whether the receiver took it (answered 2xx, or did the work and answered after the timeout).
        let accepted: Bool
    }

    /// One coordinator's turn between its claim and its records.
    struct InFlight {
        let coordinator: String
        let claimed: [ClaimedDelivery]
        let outcomes: [DeliveryOutcome]
        let answersAt: Date
        /// When the claim's lease runs out (seconds since 1970).
        let leaseUntil: Double
    }

    /// The simulated coordinators' decisions: a short timeout and lease, a fast back-off and a give-up
    /// after 40 virtual seconds, so that a seed sees retries, give-ups and expired claims; only the
    /// receiver's host is allowed (the refused webhook gives up at once).
    static let turn = DeliveryTurn(
        policy: DeliveryPolicy(base: 0.5, giveUpAfter: 40), hosts: WebhookHosts(allowed: ["receiver.sim"]), timeout: 2, leaseMargin: 3)
    static let batch = 4
    static let secret = "simulated-webhook-secret"

    var random: SeededRandom
    /// By coordinator index.
    var inFlight: [Int: InFlight] = [:]
    var posts: [Post] = []
    /// Deliveries the receiver may rightly see twice: a record of theirs was lost, their claimer died
    /// before recording, or an answer came after the claim's lease.
    var explained: Set<Int64> = []
    var recordsLost = 0
    /// The last claim of each delivery.
    var lastClaim: [Int64: MemoryDeliveryClaim] = [:]
    var claimsSeen = 0
    var violations: [String] = []

    init(seed: UInt64) { random = SeededRandom(seed: seed ^ 0x3EB_400C) }

    /// The webhooks every `--webhooks` seed registers: all kinds; the run kinds of names with an `i`,
    /// in Slack's format; the node kinds; one to a host not allowed.
    static func register(in store: MemoryStore) {
        let hooks: [(String, String, String?, String)] = [
            ("http://receiver.sim/all", "all", nil, "json"),
            ("https://receiver.sim/runs", "run.*", "*i*", "slack"),
            ("http://receiver.sim:8080/nodes?x=1", "node.failed,node.retrying,signal.waiting", nil, "json"),
            ("http://elsewhere.sim/refused", "run.succeeded,run.failed", nil, "json"),
        ]
        for (url, events, glob, format) in hooks {
            if case let .success(draft) = WebhookDraft.make(url: url, events: events, nameGlob: glob, secret: secret, format: format) {
                store.addWebhook(draft, createdBy: "baton-sim")
            }
        }
    }

    /// Whether coordinator `index` (now the process `name`) has something to do at `now`.
    func canAct(_ index: Int, name: String, now: Date) -> Bool {
        guard let flight = inFlight[index], flight.coordinator == name else { return true }
        return now >= flight.answersAt
    }

    /// One step of coordinator `index`'s delivery loop: the records of its answered posts, or a claim and its posts.
    func act(_ index: Int, name: String, store: MemoryStore, cut: Bool, faults: Bool, trace: (String) -> Void) {
        if let flight = inFlight.removeValue(forKey: index) {
            if flight.coordinator == name {
                record(flight, store: store, cut: cut, faults: faults, trace: trace)
                return
            }
            explained.formUnion(flight.claimed.map(\.id))  // its process died before recording
        }
        if cut {
            trace("\(name) webhooks: the store is out of reach")
            return
        }
        let turn = Self.turn
        guard let (now, claimed) = try? store.claimDeliveries(coordinator: name, limit: Self.batch, lease: turn.lease) else { return }
        checkClaims(store: store, now: now)
        if claimed.isEmpty { return }
        let requests = turn.requests(for: claimed, time: Int64(now))
        var outcomes: [DeliveryOutcome] = []
        var latest = 0.0
        for (delivery, request) in zip(claimed, requests) {
            guard let request else { continue }
            let (outcome, delay, accepted) = answer()
            if accepted && outcome.status == nil { explained.insert(delivery.id) }
            outcomes.append(outcome)
            latest = max(latest, delay)
            posts.append(
                Post(
                    deliveryID: delivery.id, attempt: Int(request.header("Baton-Delivery-Attempt") ?? "") ?? 0, coordinator: name, at: now,
                    accepted: accepted))
        }
        inFlight[index] = InFlight(
            coordinator: name, claimed: claimed, outcomes: outcomes, answersAt: Date(timeIntervalSince1970: now + latest),
            leaseUntil: now + turn.lease)
        trace("\(name) webhooks: claims \(claimed.map { "\($0.id)#\($0.attempts + 1)" }.joined(separator: " ")), answers in \(latest)")
    }

    /// The receiver's answer to one post: the outcome, its delay in seconds, and whether it took the event.
    private func answer() -> (DeliveryOutcome, Double, Bool) {
        let r = random.unit()
        let quick = 0.01 + random.unit() * 0.5
        let ms = { (delay: Double) in Int(delay * 1000) }
        switch r {
        case ..<0.6:
            let status = random.chance(0.8) ? 200 : 204
            return (DeliveryOutcome(status: status, error: nil, durationMs: ms(quick)), quick, true)
        case ..<0.75:
            let status = [500, 503, 404][random.index(3)]
            return (DeliveryOutcome(status: status, error: nil, durationMs: ms(quick)), quick, false)
        case ..<0.87:
            // Timed out: the receiver may have done the work all the same.
            let timeout = Self.turn.timeout
            return (DeliveryOutcome(status: nil, error: "timed out", durationMs: ms(timeout)), timeout, random.chance(0.5))
        case ..<0.93:
            // Answered 2xx, but the process stalled past the claim's lease before it read the answer.
            let late = Self.turn.lease + 0.2 + random.unit() * 3
            return (DeliveryOutcome(status: 200, error: nil, durationMs: ms(late)), late, true)
        default:
            return (DeliveryOutcome(status: nil, error: "connection refused", durationMs: 1), 0.001, false)
        }
    }

    /// Records a turn's attempts, as `WebhookDelivery` does, unless the store is out of reach or fails
    /// (a store fault: the records from there on are lost, as a throwing turn loses them).
    private func record(_ flight: InFlight, store: MemoryStore, cut: Bool, faults: Bool, trace: (String) -> Void) {
        let now = store.now.timeIntervalSince1970
        // Recorded after the claim's lease ran out (a slow answer, a stalled process): another may have claimed them meanwhile.
        if now > flight.leaseUntil { explained.formUnion(flight.claimed.map(\.id)) }
        let records = Self.turn.records(for: flight.claimed, outcomes: flight.outcomes, now: now)
        for (i, record) in records.enumerated() {
            if cut || (faults && random.chance(0.04)) {
                let lost = records[i...].map(\.deliveryID)
                explained.formUnion(lost)
                recordsLost += lost.count
                trace("\(flight.coordinator) webhooks: records of \(lost.map(String.init).joined(separator: " ")) lost")
                return
            }
            let before = store.tables.deliveries[record.deliveryID]?.row
            let stored =
                (try? store.recordDeliveryAttempt(
                    record.deliveryID, attempt: record.attempt, status: record.outcome.status, error: record.outcome.error,
                    durationMs: record.outcome.durationMs, coordinator: flight.coordinator, step: record.step)) ?? false
            if stored, let before, before.state != "pending" {
                violations.append("webhook delivery \(record.deliveryID): attempt \(record.attempt) was recorded after it ended \(before.state)")
            }
        }
        trace("\(flight.coordinator) webhooks: records \(records.map { "\($0.deliveryID)#\($0.attempt) \($0.step.state)" }.joined(separator: ", "))")
    }

    /// The claims just made: each by the holder of its partition's live lease, none while another's lease of it ran.
    func checkClaims(store: MemoryStore, now: Double) {
        let claims = store.deliveryClaims
        defer { claimsSeen = claims.count }
        for claim in claims[claimsSeen...] {
            if let d = store.tables.deliveries[claim.deliveryID] {
                let p = store.tables.partitions[d.partition]
                if p.owner != claim.coordinator || !(p.leaseUntil.map { $0.timeIntervalSince1970 > now } ?? false) {
                    violations.append(
                        "webhook delivery \(claim.deliveryID) claimed by \(claim.coordinator), which does not hold its partition \(d.partition)")
                }
            }
            if let prev = lastClaim[claim.deliveryID], prev.until > claim.at + 1e-6, prev.attempts == claim.attempts {
                violations.append(
                    "webhook delivery \(claim.deliveryID) claimed by \(claim.coordinator) at \(claim.at) while \(prev.coordinator)'s claim ran until \(prev.until)"
                )
            }
            lastClaim[claim.deliveryID] = claim
        }
    }
}
