/// A reference that could not be resolved at run time.
public struct TemplateError: Error, Sendable, CustomStringConvertible {
    public let reference: Reference
    public let reason: String
    public var description: String {
        let select = reference.select.tokens.isEmpty ? "" : " select '\(reference.select)'"
        return "input reference to '\(reference.node)'\(select): \(reason)"
    }
}
