/// `cache`: a node whose procedure and canonical input match a node that succeeded within `ttl`
/// seconds, in any run, takes that output without running.
public struct CachePolicy: Sendable, Equatable, Codable {
    public let ttl: Double

    public init(ttl: Double) { self.ttl = ttl }
}
