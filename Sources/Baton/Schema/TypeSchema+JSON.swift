/// The stable JSON form of a schema (documented in docs/graph-format.md).
extension TypeSchema: Codable {
    public init(from decoder: Decoder) throws { self.init(json: try JSON(from: decoder)) }

    public func encode(to encoder: Encoder) throws { try json.encode(to: encoder) }

    /// The schema as a JSON value, members in a fixed order.
    public var json: JSON {
        switch self {
        case .any: return ["type": "any"]
        case .null: return ["type": "null"]
        case .boolean: return ["type": "boolean"]
        case .integer: return ["type": "integer"]
        case .number: return ["type": "number"]
        case let .string(values):
            guard let values else { return ["type": "string"] }
            return ["type": "string", "enum": .array(values.map(JSON.string))]
        case let .array(items):
            return ["type": "array", "items": items.json]
        case let .object(properties, additional):
            var members: [(key: String, value: JSON)] = [
                ("type", "object"), ("properties", .object(JSONObject(properties.map { ($0.name, $0.schema.json) }))),
                ("required", .array(properties.filter(\.required).map { .string($0.name) })),
            ]
            if let additional { members.append(("additionalProperties", additional.json)) }
            return .object(JSONObject(members))
        case let .nullable(inner):
            guard case var .object(o) = inner.json else { return inner.json }
            o["nullable"] = true
            return .object(o)
        }
    }

    /// Reads the JSON form. Anything it does not recognise (a newer kind of schema, a malformed
    /// one) reads as `any`: a schema only ever makes checking less strict, never breaks a reader.
    public init(json: JSON) {
        guard case let .object(o) = json else { self = .any; return }
        let base: TypeSchema
        switch o["type"]?.stringValue {
        case "null": base = .null
        case "boolean": base = .boolean
        case "integer": base = .integer
        case "number": base = .number
        case "string":
            base = .string(values: o["enum"]?.arrayValue.map { $0.compactMap(\.stringValue) })
        case "array":
            base = .array(items: o["items"].map(TypeSchema.init(json:)) ?? .any)
        case "object":
            let required = Set(o["required"]?.arrayValue?.compactMap(\.stringValue) ?? [])
            let properties = (o["properties"]?.objectValue?.members ?? []).map {
                SchemaProperty($0.key, TypeSchema(json: $0.value), required: required.contains($0.key))
            }
            base = .object(properties, additional: o["additionalProperties"].map(TypeSchema.init(json:)))
        default:
            self = .any
            return
        }
        self = o["nullable"] == true && base != .null ? .nullable(base) : base
    }
}
