/// `concurrency`: at most `limit` nodes whose `key` evaluates to the same value are queued or
/// running at once, across the cluster. The key may hold `$from` references (they are dependencies).
public struct ConcurrencyPolicy: Sendable, Equatable, Codable {
    public let key: Template
    public let limit: Int

    public init(key: Template, limit: Int) {
        self.key = key
        self.limit = limit
    }

    /// The evaluated key as text: a string as it is, a number or boolean as its JSON text
    /// (so `7` and `"7"` share a key); null, arrays and objects are refused.
    public static func keyText(_ value: JSON) -> Result<String, AdmissionKeyError> {
        switch value {
        case let .string(s): return .success(s)
        case .int, .double, .bool: return .success(CanonicalJSON.text(value))
        default:
            return .failure(AdmissionKeyError(description: "concurrency/key must evaluate to a string, number or boolean, found \(value.kindName)"))
        }
    }
}

/// Why a concurrency key cannot be used.
public struct AdmissionKeyError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
}
