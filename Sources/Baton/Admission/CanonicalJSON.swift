/// One text per JSON value: object keys sorted, numbers normalized (`1.0` is `1`, `-0` is `0`).
/// Two inputs that mean the same are the same text: what the cache compares.
public enum CanonicalJSON {
    public static func text(_ value: JSON) -> String { normalized(value).serialized(sortedKeys: true) }

    /// The value with every integral double written as an integer.
    public static func normalized(_ value: JSON) -> JSON {
        switch value {
        case let .double(d):
            if let i = Int64(exactly: d) { return .int(i) }
            return value
        case let .array(items): return .array(items.map(normalized))
        case let .object(o): return .object(JSONObject(o.members.map { (key: $0.key, value: normalized($0.value)) }))
        default: return value
        }
    }
}
