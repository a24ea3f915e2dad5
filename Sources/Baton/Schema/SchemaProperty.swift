/// One named member of an object schema.
public struct SchemaProperty: Sendable, Hashable {
    public let name: String
    public let schema: TypeSchema
    /// False when the type reads the member with `decodeIfPresent` (an optional): it may be missing or `null`.
    public let required: Bool

    public init(_ name: String, _ schema: TypeSchema, required: Bool = true) {
        self.name = name
        self.schema = schema
        self.required = required
    }
}
