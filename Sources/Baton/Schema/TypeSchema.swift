/// The shape of a JSON value a procedure accepts or returns: a small subset of JSON Schema,
/// derived from the procedure's `Codable` types (see `TypeSchema.derived(from:)`).
///
/// Its JSON form is stable (docs/graph-format.md, "Type checking"): `{"type": "any"}`,
/// `{"type": "integer"}`, `{"type": "string", "enum": ["a", "b"]}`, `{"type": "array", "items": S}`,
/// `{"type": "object", "properties": {"k": S}, "required": ["k"], "additionalProperties": S}`;
/// any of them with `"nullable": true` also accepts `null`. A `type` this build does not know
/// decodes as `any`, so a newer worker's schema never makes its heartbeat unreadable.
public indirect enum TypeSchema: Sendable, Hashable {
    /// Any JSON value (Baton's `JSON`, or a type whose shape could not be derived).
    case any
    case null
    case boolean
    /// A number without a fractional part.
    case integer
    case number
    /// A string; `values` lists the only strings allowed (a `String` enum), or is nil.
    case string(values: [String]?)
    case array(items: TypeSchema)
    /// An object with the named `properties`; `additional`, when known, is the shape of every
    /// other member (a dictionary). Members a struct does not name are ignored, not refused.
    /// Build it with `object(_:additional:)`, which sorts the properties by name.
    case object(properties: [SchemaProperty], additional: TypeSchema?)
    /// The value may also be `null`.
    case nullable(TypeSchema)

    /// A string with no restriction on its value.
    public static let string = TypeSchema.string(values: nil)

    /// An object with these properties (and no known shape for others), sorted by name: the
    /// order in which a schema lists its properties is always this one, whichever way it was made
    /// (derived, or read back from JSON whose object keys may come in any order).
    public static func object(_ properties: [SchemaProperty], additional: TypeSchema? = nil) -> TypeSchema {
        .object(properties: properties.sorted { $0.name < $1.name }, additional: additional)
    }

    /// A dictionary: an object every member of which has shape `values`.
    public static func dictionary(of values: TypeSchema) -> TypeSchema { .object(properties: [], additional: values) }

    /// The same shape, without the `null` that `nullable` allows.
    public var nonNull: TypeSchema {
        if case let .nullable(inner) = self { return inner.nonNull }
        return self
    }

    /// The property named `name`, if this is an object that names it.
    public func property(_ name: String) -> SchemaProperty? {
        guard case let .object(properties, _) = nonNull else { return nil }
        return properties.first { $0.name == name }
    }

    /// A short phrase for messages, such as `array of number` or `string (one of "a", "b")`;
    /// objects are only `object` (see `brief` for their members).
    public var summary: String { describe(depth: 0) }

    /// One line showing objects with their members, such as `{values: array of number, scale?: integer}`.
    public var brief: String { describe(depth: 3) }

    private func describe(depth: Int) -> String {
        switch self {
        case .any: return "any"
        case .null: return "null"
        case .boolean: return "boolean"
        case .integer: return "integer"
        case .number: return "number"
        case let .string(values):
            guard let values else { return "string" }
            return "string (one of " + values.map { "\"\($0)\"" }.joined(separator: ", ") + ")"
        case let .array(items):
            return items == .any ? "array" : "array of " + items.describe(depth: depth)
        case let .object(properties, additional):
            if properties.isEmpty, let additional {
                return additional == .any ? "object" : "object of " + additional.describe(depth: depth)
            }
            guard depth > 0, !properties.isEmpty else { return "object" }
            var parts = properties.map { "\($0.name)\($0.required ? "" : "?"): \($0.schema.describe(depth: depth - 1))" }
            if let additional { parts.append("...: \(additional.describe(depth: depth - 1))") }
            return "{" + parts.joined(separator: ", ") + "}"
        case let .nullable(inner):
            return inner.describe(depth: depth) + " or null"
        }
    }
}
