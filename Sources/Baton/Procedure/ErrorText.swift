import Foundation

/// Readable, stable text for an error a procedure threw that is not a `ProcedureFailure`: the
/// same in every process and every run, so failures can be grouped and compared.
public enum ErrorText {
    /// The error's own words when it has them (`LocalizedError.errorDescription`, else
    /// `CustomStringConvertible.description`), else its type name and fields, e.g.
    /// `LookupError.notFound(id: 3)` or `QuotaError(used: 11, limit: 10)`, with no memory
    /// addresses (`(unknown context at $5631cb54df70)`) and no module prefix.
    public static func describe(_ error: any Error) -> String {
        if let localized = error as? LocalizedError, let text = localized.errorDescription { return stripped(text) }
        if let described = (error as Any) as? CustomStringConvertible { return stripped(described.description) }
        let name = typeName(error)
        let last = name.split(separator: ".").last.map(String.init) ?? name
        let text = stripped(String(describing: error))
        if text.hasPrefix(last + "(") { return text }  // a struct: `QuotaError(used: 11, limit: 10)`
        if text.hasSuffix(last) { return name }  // a class: its qualified name
        return "\(name).\(text)"  // an enum case reads `notFound(id: 3)`: its type goes in front
    }

    /// The error's type name, unqualified (`QuotaError`, or `Outer.QuotaError` for a nested type).
    public static func typeName(_ error: any Error) -> String {
        var name = stripped(String(reflecting: type(of: error)))
        // Drop the module: the first component, unless the name has only one.
        if let dot = name.firstIndex(of: ".") { name = String(name[name.index(after: dot)...]) }
        return name.isEmpty ? "Error" : name
    }

    /// `text` without `(unknown context at $...)` parts and the dots around them.
    static func stripped(_ text: String) -> String {
        text.replacing(/\(unknown context at \$[0-9a-fA-F]+\)\./, with: "").replacing(#/ ?\(unknown context at \$[0-9a-fA-F]+\)/#, with: "")
    }
}
