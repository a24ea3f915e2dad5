/// A reference (or a map's `$item` pointer) that could not be resolved at run time.
public struct TemplateError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public let reason: String
    /// The reference, when a `$from` failed.
    public let reference: Reference?

    public init(reference: Reference, reason: String) {
        let select = reference.select.tokens.isEmpty ? "" : " select '\(reference.select)'"
        self.reason = reason
        self.reference = reference
        self.description = "input reference to '\(reference.node)'\(select): \(reason)"
    }

    public init(item pointer: JSONPointer, index: Int, reason: String) {
        self.reason = reason
        self.reference = nil
        self.description = "$item '\(pointer)' of element \(index): \(reason)"
    }
}
