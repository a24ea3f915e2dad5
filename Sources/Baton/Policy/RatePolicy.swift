/// `rate`: at most `limit` nodes whose `key` evaluates to the same value start per `per` seconds,
/// across the cluster (an external API's quota, say). The key may hold `$from` and `$input`
/// references (they are dependencies) and, on a map, `$item` and `$index`.
public struct RatePolicy: Sendable, Equatable, Codable {
    public let key: Template
    public let limit: Int
    /// The window, in seconds.
    public let per: Double

    public init(key: Template, limit: Int, per: Double) {
        self.key = key
        self.limit = limit
        self.per = per
    }

    /// The evaluated key as text, as `ConcurrencyPolicy.keyText` reads it.
    public static func keyText(_ value: JSON) -> Result<String, AdmissionKeyError> {
        ConcurrencyPolicy.keyText(value).mapError {
            AdmissionKeyError(description: $0.description.replacingOccurrences(of: "concurrency/key", with: "rate/key"))
        }
    }
}
