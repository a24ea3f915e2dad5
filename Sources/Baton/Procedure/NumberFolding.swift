/// Adds or multiplies JSON numbers exactly while they are integers that fit in
/// 64 bits, in floating point otherwise, and refuses a result that is not finite.
public enum NumberFolding {
    public enum Operation: Sendable { case sum, product }

    /// `procedure` names the caller in the error for a value that is not a number.
    public static func fold(_ values: [JSON], _ operation: Operation, procedure: String) throws -> JSON {
        var exact: Int64? = operation == .sum ? 0 : 1
        var approximate: Double = operation == .sum ? 0 : 1
        for (i, value) in values.enumerated() {
            switch value {
            case let .int(n):
                if let e = exact {
                    let (r, overflow) = operation == .sum ? e.addingReportingOverflow(n) : e.multipliedReportingOverflow(by: n)
                    exact = overflow ? nil : r
                }
                approximate = operation == .sum ? approximate + Double(n) : approximate * Double(n)
            case let .double(d):
                exact = nil
                approximate = operation == .sum ? approximate + d : approximate * d
            default:
                throw ProcedureFailure("input does not fit \(procedure): '/values[\(i)]': expected a number", permanent: true)
            }
        }
        if let exact { return .int(exact) }
        guard approximate.isFinite else {
            throw ProcedureFailure("the \(operation == .sum ? "sum" : "product") is too large to represent", permanent: true)
        }
        // A whole result within the exactly representable range reads best as an integer.
        if approximate == approximate.rounded(), abs(approximate) <= 9_007_199_254_740_992 { return .int(Int64(approximate)) }
        return .double(approximate)
    }
}
