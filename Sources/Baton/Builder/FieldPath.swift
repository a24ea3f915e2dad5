/// Turns a key path into the JSON field names it selects, so `\.total` reads `/total`.
///
/// Swift gives a key path's property names through its `debugDescription` (`\Order.lines.count`),
/// which needs the reflection metadata Swift emits by default. The rules:
/// - each component must be a stored property; subscripts and computed properties are refused
///   with a problem that `GraphBuilder.build()` reports;
/// - optional chaining (`\.customer?.name`) selects through the optional;
/// - the JSON name is the property name, unless the type that declares the first component
///   conforms to `CustomFieldNames` (for `CodingKeys` with other names). For renamed fields deeper
///   down, select one level at a time: `value.field(\.customer).field(\.postCode)`.
public enum FieldPath {
    /// The field names `keyPath` selects, or why it cannot be used.
    public static func tokens<Root, Value>(of keyPath: KeyPath<Root, Value>) -> Result<[String], FieldPathError> {
        let text = keyPath.debugDescription
        let prefix = "\\" + String(describing: Root.self)
        guard text.hasPrefix(prefix) else {
            return .failure(FieldPathError("key path \(text) on \(Root.self) cannot be read as field names"))
        }
        var rest = text.dropFirst(prefix.count)
        // Through an optional root (`\.?.name`, `\.!.name`): the names are the wrapped type's.
        var owner: Any.Type = Root.self
        if rest.hasPrefix("?") || rest.hasPrefix("!"), let optional = Root.self as? any OptionalWrapping.Type {
            owner = optional.wrappedType
            while rest.hasPrefix("?") || rest.hasPrefix("!") { rest = rest.dropFirst() }
        }
        if rest == ".self" || rest.isEmpty { return .success([]) }
        guard rest.hasPrefix(".") else {
            return .failure(FieldPathError("key path \(text) must name stored properties of \(Root.self)"))
        }
        rest = rest.dropFirst()
        var names: [String] = []
        for part in rest.split(separator: ".", omittingEmptySubsequences: false) {
            var name = Substring(part)
            while name.hasSuffix("?") || name.hasSuffix("!") { name = name.dropLast() }
            guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
                return .failure(
                    FieldPathError(
                        "key path \(text) must name stored properties only (no subscripts or computed properties): select elements with a separate field"
                    ))
            }
            names.append(String(name))
        }
        if let named = owner as? any CustomFieldNames.Type, let renamed = named.fieldName(forProperty: names[0]) {
            names[0] = renamed
        }
        return .success(names)
    }
}

/// A type whose `CodingKeys` name some fields differently from their properties: tells the graph
/// builder the JSON name of each such property, e.g. `["firedAt": "fired_at"]`.
public protocol CustomFieldNames {
    /// JSON names by property name; properties not listed keep their name.
    static var fieldNames: [String: String] { get }
}

extension CustomFieldNames {
    static func fieldName(forProperty name: String) -> String? { fieldNames[name] }
}

/// Lets `FieldPath` see through an optional root to the type that names the fields.
protocol OptionalWrapping {
    static var wrappedType: Any.Type { get }
}

extension Optional: OptionalWrapping {
    static var wrappedType: Any.Type { Wrapped.self }
}

/// Why a key path cannot name a JSON field.
public struct FieldPathError: Error, Sendable, CustomStringConvertible {
    public let message: String
    init(_ message: String) { self.message = message }
    public var description: String { message }
}
