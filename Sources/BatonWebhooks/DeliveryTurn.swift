import Baton
import BatonSeams

/// One delivery turn's decisions, as a value (`WebhookDelivery` and the cluster simulator carry them
/// out): how long a claim is leased, which claimed deliveries are posted and which are refused by
/// host (`WebhookHosts`: given up at once, the reason recorded), and what is recorded after the
/// posts, with the step `DeliveryPolicy` says follows each outcome.
public struct DeliveryTurn: Sendable, Equatable {
    public var policy: DeliveryPolicy
    public var hosts: WebhookHosts
    /// Seconds each post may take.
    public var timeout: Double
    /// Seconds a claim is leased beyond `timeout`: a claimer that dies before recording delays its
    /// deliveries by this much; one slower than the lease may see its deliveries claimed again.
    public var leaseMargin: Double

    public init(
        policy: DeliveryPolicy = DeliveryPolicy(), hosts: WebhookHosts = WebhookHosts(allowed: nil), timeout: Double = 10, leaseMargin: Double = 60
    ) {
        self.policy = policy
        self.hosts = hosts
        self.timeout = timeout
        self.leaseMargin = leaseMargin
    }

    /// The lease of a claim, in seconds.
    public var lease: Double { timeout + leaseMargin }

    /// For each claimed delivery, in order, its request signed at `time` (seconds since 1970), or nil
    /// when its host is refused (it is not posted).
    public func requests(for claimed: [ClaimedDelivery], time: Int64) -> [WebhookRequest?] {
        claimed.map { hosts.refusal($0.url) == nil ? WebhookRequest($0, time: time) : nil }
    }

    /// What to record for each claimed delivery, in order, at `now` (the database's seconds since
    /// 1970): `outcomes` are the answers to the posted ones (the non-nil `requests`), in order.
    public func records(for claimed: [ClaimedDelivery], outcomes: [DeliveryOutcome], now: Double) -> [DeliveryRecord] {
        var posted = outcomes.makeIterator()
        return claimed.map { delivery in
            let attempt = delivery.attempts + 1
            let refusal = hosts.refusal(delivery.url)
            let outcome =
                refusal.map { DeliveryOutcome(status: nil, error: $0, durationMs: 0) } ?? posted.next()
                ?? DeliveryOutcome(status: nil, error: "not sent", durationMs: 0)
            let step: DeliveryStep =
                refusal != nil ? .giveUp : policy.step(attempt: attempt, status: outcome.status, createdAt: delivery.createdAt, now: now)
            let log: (warning: Bool, text: String)? =
                switch step {
                case .delivered: nil
                case let .retry(after):
                    (
                        false,
                        "webhook \(delivery.webhookID): \(delivery.eventID) attempt \(attempt) got \(outcome.summary); again in \(DurationText.format(after))"
                    )
                case .giveUp:
                    (true, "webhook \(delivery.webhookID): \(delivery.eventID) given up after \(attempt) attempts (\(outcome.summary))")
                }
            return DeliveryRecord(deliveryID: delivery.id, attempt: attempt, outcome: outcome, step: step, log: log)
        }
    }
}
