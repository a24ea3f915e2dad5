import Baton

/// `demo.multiply`: the product of `values`.
public struct MultiplyProcedure: Procedure {
    public static let name = "demo.multiply"
    public struct Input: Codable, Sendable { public let values: [JSON] }
    public init() {}
    public func execute(_ input: Input, context: ProcedureContext) async throws -> JSON {
        try NumberFolding.fold(input.values, .product, procedure: Self.name)
    }
}

/// `demo.divide`: `dividend / divisor`; dividing by zero fails permanently.
public struct DivideProcedure: Procedure {
    public static let name = "demo.divide"
    public struct Input: Codable, Sendable { public let dividend: Double; public let divisor: Double }
    public init() {}
    public func execute(_ input: Input, context: ProcedureContext) async throws -> JSON {
        guard input.divisor != 0 else { throw ProcedureFailure("division by zero", permanent: true) }
        return .double(input.dividend / input.divisor)
    }
}
