import Baton

/// `demo.multiply`: the product of `values`.
public struct MultiplyProcedure: Procedure {
    public static let name = "demo.multiply"
    public struct Input: Codable, Sendable { public let values: [JSON] }
    public static var inputSchema: TypeSchema { .object([SchemaProperty("values", .array(items: .number))]) }
    public static var outputSchema: TypeSchema { .number }
    public init() {}
    public func execute(_ input: Input, context: ProcedureContext) async throws -> JSON {
        try NumberFolding.fold(input.values, .product, procedure: Self.name)
    }
}

/// `demo.divide`: `dividend / divisor`; dividing by zero fails permanently.
public struct DivideProcedure: Procedure {
    public static let name = "demo.divide"
    public struct Input: Codable, Sendable { public let dividend: Double; public let divisor: Double }
    public static var outputSchema: TypeSchema { .number }
    public init() {}
    public func execute(_ input: Input, context: ProcedureContext) async throws -> JSON {
        guard input.divisor != 0 else { throw ProcedureFailure("division by zero", permanent: true) }
        return .double(input.dividend / input.divisor)
    }
}

/// `demo.slow-add`: the sum of `values` (integers; modulo `modulo` when given), after working
/// for `seconds` (for load and chaos tests).
public struct SlowAddProcedure: Procedure {
    public static let name = "demo.slow-add"
    public struct Input: Codable, Sendable { public let values: [JSON]; public let seconds: Double; public let modulo: Int64? }
    public static var inputSchema: TypeSchema {
        .object([
            SchemaProperty("values", .array(items: .number)), SchemaProperty("seconds", .number),
            SchemaProperty("modulo", .integer, required: false),
        ])
    }
    public static var outputSchema: TypeSchema { .number }
    public init() {}
    public func execute(_ input: Input, context: ProcedureContext) async throws -> JSON {
        guard input.seconds >= 0, input.seconds <= 3600 else { throw ProcedureFailure("seconds must be from 0 to 3600", permanent: true) }
        try await Task.sleep(nanoseconds: UInt64(input.seconds * 1_000_000_000))
        guard let m = input.modulo else { return try NumberFolding.fold(input.values, .sum, procedure: Self.name) }
        guard m > 0 else { throw ProcedureFailure("modulo must be positive", permanent: true) }
        var sum: Int64 = 0
        for (i, v) in input.values.enumerated() {
            guard case let .int(n) = v else {
                throw ProcedureFailure("input does not fit \(Self.name): '/values[\(i)]': expected an integer", permanent: true)
            }
            sum = (sum + ((n % m) + m) % m) % m
        }
        return .int(sum)
    }
}
