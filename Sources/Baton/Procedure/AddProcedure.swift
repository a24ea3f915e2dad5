/// `baton.add`: the sum of `values`.
public struct AddProcedure: Procedure {
    public static let name = "baton.add"
    public struct Input: Codable, Sendable { public let values: [JSON] }
    /// `values` holds JSON so that integers stay exact; what it takes is numbers.
    public static var inputSchema: TypeSchema { .object([SchemaProperty("values", .array(items: .number))]) }
    public static var outputSchema: TypeSchema { .number }
    public init() {}
    public func execute(_ input: Input, context: ProcedureContext) async throws -> JSON {
        try NumberFolding.fold(input.values, .sum, procedure: Self.name)
    }
}
