/// `baton.echo`: returns its input unchanged.
public struct EchoProcedure: Procedure {
    public static let name = "baton.echo"
    public init() {}
    public func execute(_ input: JSON, context: ProcedureContext) async throws -> JSON { input }
}
