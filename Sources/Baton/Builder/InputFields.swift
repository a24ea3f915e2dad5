/// An input assembled field by field, each field typed by its key path:
/// `set(\.text, chunk.output(\.first))` compiles only if `text` and `first` have the same type
/// (for an optional field, `.optional` makes a value of the wrapped type fit; `set(\.n, literal: 3)` sets a literal).
/// There is one `set` per kind of argument, so a mismatch is diagnosed as one: "cannot convert GraphValue<Int> to GraphValue<String>".
/// Fields left unset are left out of the input (the procedure's decoder reports a missing
/// required one when the node runs, and `submit` checks it against the published schema).
public struct InputFields<Input>: Sendable {
    var object = JSONObject()
    var references: [ScopedKey] = []
    var usesItem = false
    var problems: [String] = []

    init() {}

    /// Sets a field to a value of the same type (an output, a run input, a map item, a literal).
    public mutating func set<V>(_ field: KeyPath<Input, V>, _ value: GraphValue<V>) {
        place(field, value.template, value.references, value.usesItem, value.problems)
    }

    /// Sets a field to a literal, encoded the way workers decode inputs.
    public mutating func set<V: Encodable>(_ field: KeyPath<Input, V>, literal: V) {
        set(field, GraphValue<V>.literal(literal))
    }

    private mutating func place<V>(_ field: KeyPath<Input, V>, _ template: JSON, _ refs: [ScopedKey], _ item: Bool, _ found: [String]) {
        references += refs
        usesItem = usesItem || item
        problems += found
        switch FieldPath.tokens(of: field) {
        case let .failure(error): problems.append(error.message)
        case let .success(tokens) where tokens.isEmpty:
            problems.append("set(\\.self, ...) replaces the whole input: pass the value as `input:` instead")
        case let .success(tokens):
            guard case let .object(placed) = Self.insert(template, at: tokens[...], into: .object(object)) else {
                problems.append("field \(JSONPointer(tokens: tokens)) is set inside a value that is not an object")
                return
            }
            object = placed
        }
    }

    private static func insert(_ value: JSON, at tokens: ArraySlice<String>, into container: JSON) -> JSON? {
        guard let first = tokens.first else { return value }
        guard case var .object(o) = container else { return nil }
        guard let inner = insert(value, at: tokens.dropFirst(), into: o[first] ?? .object(JSONObject())) else { return nil }
        o[first] = inner
        return .object(o)
    }
}

extension GraphValue {
    /// An input assembled field by field: `.fields { $0.set(\.width, 100); $0.set(\.image, read.output(\.bytes)) }`.
    public static func fields(_ build: (inout InputFields<T>) -> Void) -> GraphValue<T> {
        var f = InputFields<T>()
        build(&f)
        return GraphValue(template: .object(f.object), references: f.references, usesItem: f.usesItem, problems: f.problems)
    }
}
