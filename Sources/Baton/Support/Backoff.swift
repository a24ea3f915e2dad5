/// Capped exponential back-off with full jitter, for reconnect loops.
public struct Backoff: Sendable {
    public let initial: Double
    public let maximum: Double
    private var attempt = 0

    public init(initial: Double = 0.1, maximum: Double = 5) {
        self.initial = initial
        self.maximum = maximum
    }

    /// The next delay in seconds: random in [cap/2, cap], where cap doubles each time up to `maximum`.
    public mutating func next() -> Double {
        let cap = min(maximum, initial * Double(1 << min(attempt, 30)))
        attempt += 1
        return Double.random(in: (cap / 2)...cap)
    }

    /// The next delay with a cap other than `maximum` (for errors that warrant a longer wait).
    public mutating func next(cappedAt cap: Double) -> Double {
        let bound = min(max(cap, initial), initial * Double(1 << min(attempt, 30)))
        attempt += 1
        return Double.random(in: (bound / 2)...bound)
    }

    public mutating func reset() { attempt = 0 }
}
