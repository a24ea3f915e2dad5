/// `retry`: how many attempts, and how long to wait between them.
public struct RetryPolicy: Sendable, Equatable, Codable {
    public let attempts: Int
    public let wait: WaitStrategy
    public let jitter: Bool

    public init(attempts: Int, wait: WaitStrategy = .immediate, jitter: Bool = false) {
        self.attempts = attempts
        self.wait = wait
        self.jitter = jitter
    }

    /// The wait after `failures` failed attempts; jitter spreads it over [½, 1½] of itself.
    public func delay(afterFailures failures: Int, random: Double, jitterRandom: Double) -> Double {
        let base = wait.delay(after: failures, random: random)
        return jitter ? base * (0.5 + jitterRandom) : base
    }
}
