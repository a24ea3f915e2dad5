/// Capped exponential back-off with full jitter, for reconnect loops.
public struct Backoff: Sendable {
    public let initial: Double
    public let maximum: Double
    private var attempt = 0
    /// Numbers in 0..<1 (the simulator's are seeded).
    private let random: @Sendable () -> Double

    public init(initial: Double = 0.1, maximum: Double = 5, random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        self.initial = initial
        self.maximum = maximum
        self.random = random
    }

    /// The next delay in seconds: random in [cap/2, cap], where cap doubles each time up to `maximum`.
    public mutating func next() -> Double {
        let cap = min(maximum, initial * Double(1 << min(attempt, 30)))
        attempt += 1
        return cap / 2 + cap / 2 * random()
    }

    /// The next delay with a cap other than `maximum` (for errors that warrant a longer wait).
    public mutating func next(cappedAt cap: Double) -> Double {
        let bound = min(max(cap, initial), initial * Double(1 << min(attempt, 30)))
        attempt += 1
        return bound / 2 + bound / 2 * random()
    }

    public mutating func reset() { attempt = 0 }
}
