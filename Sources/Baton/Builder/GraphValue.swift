/// A value of type `T` in a graph built in Swift: a literal, a node's output or part of it
/// (`handle.output`, `handle.output(\.field)`), a field of the run's input, or, inside a `map`
/// template, the element (`item`) or its index. Its `template` is what the graph file holds.
/// The type parameter is what makes a mismatched injection fail to compile.
public struct GraphValue<T>: Sendable {
    /// The JSON template this value stands for (`{"$from": ...}`, `{"$input": ...}`, a literal, ...).
    public let template: JSON
    /// Nodes referenced (with the scope their handle came from), for the builder's checks.
    let references: [ScopedKey]
    /// True when the value reads `$item` or `$index`: only a `map` template may hold it.
    let usesItem: Bool
    /// Problems found while making the value (a key path that names no stored property).
    let problems: [String]

    init(template: JSON, references: [ScopedKey] = [], usesItem: Bool = false, problems: [String] = []) {
        self.template = template
        self.references = references
        self.usesItem = usesItem
        self.problems = problems
    }

    /// A literal, encoded the way workers decode inputs.
    public static func literal(_ value: T) -> GraphValue<T> where T: Encodable {
        do {
            return GraphValue(template: try JSON(encoding: value))
        } catch {
            return GraphValue(template: .null, problems: ["could not encode literal \(T.self): \(error)"])
        }
    }

    /// A field of the run's input, read with a JSON pointer (`{"$input": "/customer"}`). The type is
    /// the caller's claim: prefer `GraphInput.value(_:)`, which takes it from a key path.
    public static func runInput(_ pointer: String, as type: T.Type = T.self) -> GraphValue<T> {
        GraphValue(template: ["$input": .string(pointer)])
    }

    /// Part of this value, by key path: `\.total` selects `/total`, `\.a.b` selects `/a/b`.
    /// Only stored properties can be named (see `FieldPath` for the rules).
    public func field<V>(_ keyPath: KeyPath<T, V>) -> GraphValue<V> {
        let path = FieldPath.tokens(of: keyPath)
        return appending(path)
    }

    /// Part of this value by JSON pointer (`"/rows/0"`), untyped: what a graph file's `select` says,
    /// for a value whose type has no key path to it, such as an untyped node's output (`JSON`) or
    /// an array's element. Use `unchecked(as:)` to claim a type for it.
    public func select(_ pointer: String) -> GraphValue<JSON> {
        do {
            return appending(.success(try JSONPointer(parsing: pointer).tokens))
        } catch {
            return GraphValue<JSON>(
                template: template, references: references, usesItem: usesItem, problems: problems + ["'\(pointer)' is not a JSON pointer: \(error)"])
        }
    }

    /// An array of values, each of the element type: `.array([a.output(\.total), b.output(\.total), .literal(1)])`.
    public static func array<Element>(_ items: [GraphValue<Element>]) -> GraphValue<T> where T == [Element] {
        GraphValue(
            template: .array(items.map(\.template)), references: items.flatMap(\.references),
            usesItem: items.contains { $0.usesItem }, problems: items.flatMap(\.problems))
    }

    /// An array of values of any type, for an untyped (`JSON`) input.
    public static func array(_ items: [GraphValue<JSON>]) -> GraphValue<T> where T == JSON {
        GraphValue<[JSON]>.array(items).json
    }

    /// An object of values of any type, for an untyped (`JSON`) input: `.object(["values": a.output.json])`.
    public static func object(_ members: KeyValuePairs<String, GraphValue<JSON>>) -> GraphValue<T> where T == JSON {
        GraphValue(
            template: .object(JSONObject(members.map { ($0.key, $0.value.template) })), references: members.flatMap(\.value.references),
            usesItem: members.contains { $0.value.usesItem }, problems: members.flatMap(\.value.problems))
    }

    /// The same value claimed to be of type `U`, unchecked: the way from an untyped node's output
    /// (`JSON`) to a typed input. The compiler cannot check this claim; the procedure's decoder does.
    public func unchecked<U>(as type: U.Type) -> GraphValue<U> {
        GraphValue<U>(template: template, references: references, usesItem: usesItem, problems: problems)
    }

    /// The same value where an optional of its type is expected (an optional input field).
    public var optional: GraphValue<T?> {
        GraphValue<T?>(template: template, references: references, usesItem: usesItem, problems: problems)
    }

    /// The same value with no claim on its type, for an input of type `JSON` (such as `baton.echo`'s).
    public var json: GraphValue<JSON> {
        GraphValue<JSON>(template: template, references: references, usesItem: usesItem, problems: problems)
    }

    /// This value with a pointer appended to what it selects.
    func appending<V>(_ path: Result<[String], FieldPathError>) -> GraphValue<V> {
        switch path {
        case let .failure(error):
            return GraphValue<V>(template: template, references: references, usesItem: usesItem, problems: problems + [error.message])
        case let .success(tokens) where tokens.isEmpty:
            return GraphValue<V>(template: template, references: references, usesItem: usesItem, problems: problems)
        case let .success(tokens):
            guard case var .object(o) = template else {
                return GraphValue<V>(
                    template: template, references: references, usesItem: usesItem,
                    problems: problems + ["a field of a literal cannot be selected; select it in Swift before making the literal"])
            }
            let suffix = JSONPointer(tokens: tokens).description
            for member in ["select", "$input", "$item"] {
                guard let existing = o[member]?.stringValue else { continue }
                o[member] = .string(existing + suffix)
                return GraphValue<V>(template: .object(o), references: references, usesItem: usesItem, problems: problems)
            }
            if o["$from"] != nil {
                o["select"] = .string(suffix)
                return GraphValue<V>(template: .object(o), references: references, usesItem: usesItem, problems: problems)
            }
            return GraphValue<V>(
                template: template, references: references, usesItem: usesItem,
                problems: problems + ["a field of the map index cannot be selected"])
        }
    }
}

/// A node key with the scope (group path) of the builder that added it.
struct ScopedKey: Sendable, Hashable {
    let scope: [String]
    let key: String
}
