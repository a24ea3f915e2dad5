import BatonSeams

/// The delivery decision after an attempt, as a value: a 2xx is delivered; anything else (another
/// status, no answer) is tried again after a back-off that grows 1, 3, 6, 12, 30, 90, 180, 360 times
/// `base` (10 s: 10 s, 30 s, 1 min, 2 min, 5 min, 15 min, 30 min, then every hour), until `giveUpAfter`
/// seconds (24 h) after the event, when the delivery fails for good.
public struct DeliveryPolicy: Sendable, Equatable {
    public var base: Double
    public var giveUpAfter: Double

    public static let multipliers: [Double] = [1, 3, 6, 12, 30, 90, 180, 360]

    public init(base: Double = 10, giveUpAfter: Double = 86_400) {
        self.base = base
        self.giveUpAfter = giveUpAfter
    }

    /// Seconds to wait after failed attempt number `attempt` (1 for the first).
    public func backoff(afterAttempt attempt: Int) -> Double {
        base * Self.multipliers[min(max(attempt, 1), Self.multipliers.count) - 1]
    }

    /// What follows attempt `attempt` (1 for the first) of an event enqueued at `createdAt`, which the
    /// receiver answered with `status` (nil: no answer) at `now` (seconds since 1970, the database's).
    public func step(attempt: Int, status: Int?, createdAt: Double, now: Double) -> DeliveryStep {
        if let status, (200..<300).contains(status) { return .delivered }
        let wait = backoff(afterAttempt: attempt)
        let deadline = createdAt + giveUpAfter
        if now >= deadline { return .giveUp }
        return .retry(after: min(wait, max(deadline - now, 0.001)))
    }
}
