/// A token bucket: `burst` requests at once, refilled at `perSecond`; a value, so the server's
/// limiter only stores it and reads the clock. `take` answers whether a request may go now and, if
/// not, how many seconds until one may.
public struct RateBucket: Sendable, Equatable {
    public let perSecond: Double
    public let burst: Double
    public private(set) var tokens: Double
    public private(set) var at: Double

    /// A full bucket at time `now` (seconds, any monotonic origin).
    public init(perSecond: Double, burst: Double, now: Double) {
        self.perSecond = perSecond
        self.burst = max(1, burst)
        self.tokens = max(1, burst)
        self.at = now
    }

    /// Takes one request's worth at `now`: nil when it may go, else the seconds until it may.
    public mutating func take(now: Double) -> Double? {
        if now > at {
            tokens = min(burst, tokens + (now - at) * perSecond)
            at = now
        }
        guard tokens >= 1 else { return perSecond > 0 ? (1 - tokens) / perSecond : .infinity }
        tokens -= 1
        return nil
    }
}
