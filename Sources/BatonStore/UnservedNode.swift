import Baton

/// A queued node whose procedure no live worker serves in its pool: it waits until one starts.
public struct UnservedNode: Sendable, Equatable, CustomStringConvertible {
    public let key: String
    public let procedure: String
    public let pool: String

    public init(key: String, procedure: String, pool: String) {
        self.key = key
        self.procedure = procedure
        self.pool = pool
    }

    /// `key (procedure in pool pool)`, as `submit --wait` and `watch` show it (the routed name:
    /// `acme.greet@2` for version 2).
    public var description: String { "\(key) (\(procedure) in pool \(pool))" }
}
