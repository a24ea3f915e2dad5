import AsyncHTTPClient
import Baton
import BatonStore
import Foundation
import Logging
import ServiceLifecycle

/// Posts webhook deliveries from a coordinator (`baton coordinator` runs it beside schedule firing):
/// every `interval` seconds it claims the due deliveries of the partitions this coordinator holds
/// (`Store.claimDeliveries`, at most `maxInFlight`), posts them at once with AsyncHTTPClient (no
/// redirects, `timeout` seconds each, the response body discarded), and records each attempt with
/// what `DeliveryPolicy` says follows. Database work is on a thread of its own; a database error is
/// logged once and tried again with a pause.
public struct WebhookDelivery: Service {
    public let databaseURL: String
    /// The coordinator whose partitions' deliveries this posts (`CoordinatorConfiguration.id`).
    public let coordinator: String
    public let policy: DeliveryPolicy
    public let interval: Double
    public let maxInFlight: Int
    public let timeout: Double
    /// The hosts deliveries may go to (`BATON_WEBHOOK_HOSTS`).
    public let hosts: WebhookHosts
    /// Seconds an ended delivery (delivered or given up) is kept, with its attempts (7 days).
    public let keep: Double
    public let logger: Logger

    public init(
        databaseURL: String, coordinator: String, policy: DeliveryPolicy = DeliveryPolicy(), interval: Double = 0.5, maxInFlight: Int = 8,
        timeout: Double = 10, keep: Double = 7 * 86_400, hosts: WebhookHosts = WebhookHosts(allowed: nil), logger: Logger
    ) {
        self.databaseURL = databaseURL
        self.coordinator = coordinator
        self.policy = policy
        self.interval = interval
        self.maxInFlight = maxInFlight
        self.timeout = timeout
        self.keep = keep
        self.hosts = hosts
        self.logger = logger
    }

    public func run() async throws {
        let client = HTTPClient(
            eventLoopGroup: HTTPClient.defaultEventLoopGroup,
            configuration: HTTPClient.Configuration(
                redirectConfiguration: .disallow, timeout: .init(connect: .seconds(5), read: .seconds(Int64(timeout.rounded(.up))))))
        let stop = StopSignal()
        let poster = Poster(client: client, timeout: timeout)
        do {
            try await withTaskCancellationHandler {
                try await withGracefulShutdownHandler {
                    try await DedicatedThread.run(name: "baton-webhooks") { loop(stop, poster) }
                } onGracefulShutdown: {
                    stop.set()
                }
            } onCancel: {
                stop.set()
            }
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    private func loop(_ stop: StopSignal, _ poster: Poster) {
        var store: Store?
        var failing = false
        var pruned = Date.distantPast
        repeat {
            var full = false
            do {
                if store == nil { store = try Store(url: databaseURL) }
                full = try turn(store!, poster) == maxInFlight
                if Date().timeIntervalSince(pruned) > 600 {
                    try store!.pruneDeliveries(olderThan: keep)
                    pruned = Date()
                }
                failing = false
            } catch {
                if !failing { logger.warning("webhooks: \(error); trying again") }
                failing = true
                store?.close()
                store = nil
            }
            if full && !stop.isSet { continue }
        } while !stop.wait(failing ? max(interval, 2) : interval)
        store?.close()
    }

    /// One claim, its posts and their records; the number of deliveries claimed.
    private func turn(_ store: Store, _ poster: Poster) throws -> Int {
        let (now, claimed) = try store.claimDeliveries(coordinator: coordinator, limit: maxInFlight, lease: timeout + 60)
        if claimed.isEmpty { return 0 }
        let time = Int64(Date().timeIntervalSince1970)
        let started = Date()
        let refusals = claimed.map { hosts.refusal($0.url) }
        let allowed = zip(claimed, refusals).filter { $0.1 == nil }.map(\.0)
        var posted = poster.post(allowed.map { WebhookRequest($0, time: time) }).makeIterator()
        for (delivery, refusal) in zip(claimed, refusals) {
            let attempt = delivery.attempts + 1
            let outcome = refusal.map { Poster.Outcome(status: nil, error: $0, durationMs: 0) } ?? posted.next()!
            let step =
                refusal != nil
                ? .giveUp
                : policy.step(attempt: attempt, status: outcome.status, createdAt: delivery.createdAt, now: now + Date().timeIntervalSince(started))
            try store.recordDeliveryAttempt(
                delivery.id, attempt: attempt, status: outcome.status, error: outcome.error, durationMs: outcome.durationMs,
                coordinator: coordinator, step: step)
            switch step {
            case .delivered: break
            case let .retry(after):
                logger.info(
                    "webhook \(delivery.webhookID): \(delivery.eventID) attempt \(attempt) got \(outcome.summary); again in \(DurationText.format(after))"
                )
            case .giveUp:
                logger.warning("webhook \(delivery.webhookID): \(delivery.eventID) given up after \(attempt) attempts (\(outcome.summary))")
            }
        }
        return claimed.count
    }
}
