/// One thing a node must hold while it is queued or running: a mutex category (`mutex/NAME`,
/// limit 1), a concurrency key (`concurrency/KEY`, limit N), an in-flight cache slot
/// (`cache/PROCEDURE INPUT`, limit 1: identical cached nodes run once), or a rate token
/// (`rate/KEY`: at most `limit` grants per `per` seconds; a token is taken, never given back), or a
/// fair share (`fair/POOL:PROCEDURE`, with the node's `shareKey` and `weight`: the limit is not fixed
/// but what the live workers serving that pool and procedure can soon take, `AdmissionTable.shareLimits`).
public struct AdmissionClaim: Sendable, Hashable, Codable {
    public let name: String
    public let limit: Int
    /// The rate window in seconds for a rate claim; nil for the others.
    public let per: Double?
    /// The evaluated fair key of a share claim; nil for the others.
    public let shareKey: String?
    /// The fair key's weight of a share claim (1 or more); nil for the others.
    public let weight: Int?

    public init(name: String, limit: Int, per: Double? = nil, shareKey: String? = nil, weight: Int? = nil) {
        self.name = name
        self.limit = limit
        self.per = per
        self.shareKey = shareKey
        self.weight = weight
    }

    /// A fair-share claim among the nodes ready for `pool` and `procedure` (its `limit` is unused: 0).
    public static func share(pool: String, procedure: String, key: String, weight: Int) -> AdmissionClaim {
        AdmissionClaim(name: sharePrefix + pool + ":" + procedure, limit: 0, shareKey: key, weight: weight)
    }

    /// The prefix of share claim names.
    public static let sharePrefix = "fair/"

    /// Whether this is a fair-share claim.
    public var isShare: Bool { shareKey != nil }

    public static func mutex(_ category: String) -> AdmissionClaim { AdmissionClaim(name: "mutex/" + category, limit: 1) }
    public static func concurrency(_ key: String, limit: Int) -> AdmissionClaim { AdmissionClaim(name: "concurrency/" + key, limit: limit) }
    public static func rate(_ key: String, limit: Int, per: Double) -> AdmissionClaim {
        AdmissionClaim(name: ratePrefix + key, limit: limit, per: per)
    }

    /// The prefix of rate claim names.
    public static let ratePrefix = "rate/"

    /// The rate key of a rate claim (its name without `rate/`).
    public var rateKey: String? { per == nil ? nil : String(name.dropFirst(Self.ratePrefix.count)) }

    /// How long a rate token counts after it was taken: `per`, plus a slack of a tenth of it (at most
    /// 100 ms), so that starts recorded moments after the grant (the node queued, its worker starting)
    /// still keep to `limit` in every window of `per`.
    public var tokenLifetime: Double? { per.map { $0 + Swift.min($0 * 0.1, 0.1) } }
}
