/// A node asking to be queued: what it must hold (all or none), and its cache lookup.
public struct AdmissionRequest: Sendable, Equatable {
    public let key: String
    public let claims: [AdmissionClaim]
    public let cache: CacheLookup?

    public init(key: String, claims: [AdmissionClaim], cache: CacheLookup? = nil) {
        self.key = key
        self.claims = claims
        self.cache = cache
    }
}
