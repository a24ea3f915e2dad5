/// What a procedure takes and returns, as workers publish it with their heartbeat.
/// JSON form: `{"input": TypeSchema, "output": TypeSchema}`.
public struct ProcedureSchema: Sendable, Hashable, Codable {
    public let input: TypeSchema
    public let output: TypeSchema

    public init(input: TypeSchema, output: TypeSchema) {
        self.input = input
        self.output = output
    }

    /// Reads the JSON form; a missing or unreadable part is `any`.
    public init(json: JSON) {
        self.init(input: TypeSchema(json: json["input"] ?? .null), output: TypeSchema(json: json["output"] ?? .null))
    }

    /// The JSON form.
    public var json: JSON { ["input": input.json, "output": output.json] }

    /// The schema of a procedure type: its `inputSchema` and `outputSchema`
    /// (derived from its `Input` and `Output` unless the type states them).
    public init<P: Procedure>(of procedure: P.Type) {
        self.init(input: P.inputSchema, output: P.outputSchema)
    }
}
