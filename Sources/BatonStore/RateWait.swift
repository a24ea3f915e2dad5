import Foundation

/// A run's nodes waiting for one rate key, with the key's state (`baton.rates`): for the dashboard.
public struct RateWait: Sendable, Equatable {
    public let key: String
    public let limit: Int
    public let perSeconds: Double
    /// Tokens live now.
    public let used: Int
    /// The run's waiting nodes that need the key, in line order.
    public let nodes: [String]
    /// When the next token is due (seconds since 1970), if every token is used.
    public let nextTokenAt: Double?

    public init(key: String, limit: Int, perSeconds: Double, used: Int, nodes: [String], nextTokenAt: Double?) {
        self.key = key
        self.limit = limit
        self.perSeconds = perSeconds
        self.used = used
        self.nodes = nodes
        self.nextTokenAt = nextTokenAt
    }
}
