/// `fair`: among the nodes ready for the same pool and procedure, dispatch goes round-robin across
/// the values `key` evaluates to, in proportion to their `weight`s, within priority; what waits,
/// waits in the coordinator (a share claim, `AdmissionClaim.share`). The key may hold `$from` and
/// `$input` references (they are dependencies) and, on a map, `$item` and `$index`.
public struct FairPolicy: Sendable, Equatable, Codable {
    public let key: Template
    /// The key's weight, 1 to 1000: a key of weight 2 is dispatched twice as often as one of 1.
    public let weight: Int

    public init(key: Template, weight: Int = 1) {
        self.key = key
        self.weight = weight
    }

    /// The largest weight.
    public static let maxWeight = 1000

    /// The evaluated key as text, as `ConcurrencyPolicy.keyText` reads it.
    public static func keyText(_ value: JSON) -> Result<String, AdmissionKeyError> {
        ConcurrencyPolicy.keyText(value).mapError {
            AdmissionKeyError(description: $0.description.replacingOccurrences(of: "concurrency/key", with: "fair/key"))
        }
    }
}
