/// What a cached node looks up: its procedure and canonical input, and how old an entry it takes.
public struct CacheLookup: Sendable, Hashable, Codable {
    public let procedure: String
    /// `CanonicalJSON.text` of the resolved input.
    public let input: String
    public let ttl: Double

    public init(procedure: String, input: String, ttl: Double) {
        self.procedure = procedure
        self.input = input
        self.ttl = ttl
    }

    /// The in-flight slot: identical cached nodes hold it one at a time (findOrFetch).
    public var claim: AdmissionClaim { AdmissionClaim(name: "cache/" + procedure + " " + input, limit: 1) }
}

/// An output taken from the cache, and where it came from.
public struct CacheHit: Sendable, Equatable {
    public let output: JSON
    public let sourceRun: String
    public let sourceNode: String

    public init(output: JSON, sourceRun: String, sourceNode: String) {
        self.output = output
        self.sourceRun = sourceRun
        self.sourceNode = sourceNode
    }
}
