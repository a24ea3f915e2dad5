import Baton
import Foundation

/// The API's rate limit per token (`--rate-limit`, `--rate-burst`): each token name has its own
/// `RateBucket`, in this process's memory (a server restart refills them). A refusal is a 429 with
/// `Retry-After`.
public final class RateLimiter: @unchecked Sendable {
    // Safe: `buckets` is only touched under `lock`.
    private let lock = NSLock()
    private var buckets: [String: RateBucket] = [:]
    let limit: RateLimit
    let burst: Int

    public init(limit: RateLimit, burst: Int) {
        self.limit = limit
        self.burst = max(1, burst)
    }

    /// Nil when `token` may make a request now; the 429 otherwise.
    func refusal(_ token: String, now: Double = ProcessInfo.processInfo.systemUptime) -> APIError? {
        guard let perSecond = limit.perSecond else { return nil }
        let wait = lock.withLock { () -> Double? in
            var bucket = buckets[token] ?? RateBucket(perSecond: perSecond, burst: Double(burst), now: now)
            let wait = bucket.take(now: now)
            buckets[token] = bucket
            return wait
        }
        guard let wait else { return nil }
        return .rateLimited(
            "token '\(token)' made more than \(limit) requests (burst \(burst)); retry after \(Int(wait.rounded(.up))) s",
            retryAfter: Int(wait.rounded(.up)))
    }
}
