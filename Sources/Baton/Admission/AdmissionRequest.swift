/// A node asking to be queued: what it must hold (all or none), its cache lookup, and its priority
/// (waiters go in priority order, highest first, then first come first served).
public struct AdmissionRequest: Sendable, Equatable {
    public let key: String
    public let claims: [AdmissionClaim]
    public let cache: CacheLookup?
    public let priority: Int

    public init(key: String, claims: [AdmissionClaim], cache: CacheLookup? = nil, priority: Int = 0) {
        self.key = key
        self.claims = claims
        self.cache = cache
        self.priority = priority
    }
}
