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

    /// The turn's decisions (`DeliveryTurn`): the lease, what is posted and what is recorded.
    var decisions: DeliveryTurn { DeliveryTurn(policy: policy, hosts: hosts, timeout: timeout) }

    /// One claim, its posts and their records (as `decisions` says); the number of deliveries claimed.
    private func turn(_ store: some DeliveryStore, _ poster: Poster) throws -> Int {
        let decisions = self.decisions
        let (now, claimed) = try store.claimDeliveries(coordinator: coordinator, limit: maxInFlight, lease: decisions.lease)
        if claimed.isEmpty { return 0 }
        let started = Date()
        let requests = decisions.requests(for: claimed, time: Int64(started.timeIntervalSince1970))
        let outcomes = poster.post(requests.compactMap { $0 })
        for record in decisions.records(for: claimed, outcomes: outcomes, now: now + Date().timeIntervalSince(started)) {
            try store.recordDeliveryAttempt(
                record.deliveryID, attempt: record.attempt, status: record.outcome.status, error: record.outcome.error,
                durationMs: record.outcome.durationMs, coordinator: coordinator, step: record.step)
            if let log = record.log {
                if log.warning { logger.warning("\(log.text)") } else { logger.info("\(log.text)") }
            }
        }
        return claimed.count
    }
}
