import Baton

/// `test.throw`: throws the error `input.error` names (`out-of-stock`, `lookup`), neither of them a
/// `ProcedureFailure`, so that tests see errors recorded with their type. Test worker only.
struct ThrowProcedure: Procedure {
    static let name = "test.throw"
    struct Input: Codable, Sendable {
        var error: String
        var sku: String
    }
    func execute(_ input: Input, context: ProcedureContext) async throws -> JSON {
        switch input.error {
        case "out-of-stock": throw InventoryError.outOfStock(sku: input.sku)
        case "lookup": throw LookupError(sku: input.sku)
        default: throw ProcedureFailure("error must be 'out-of-stock' or 'lookup', found '\(input.error)'", permanent: true)
        }
    }
}
