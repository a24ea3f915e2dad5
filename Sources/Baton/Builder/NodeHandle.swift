/// A node added to a `GraphBuilder`, typed by its output: `output` and `output(\.field)` inject it
/// (or part of it) into other nodes, and only into inputs of the same type.
public struct NodeHandle<Output>: NodeReference {
    /// The node's key in its builder (inside a group: its local key).
    public let key: String
    let scope: [String]

    init(key: String, scope: [String]) {
        self.key = key
        self.scope = scope
    }

    /// The node's whole output (`{"$from": key}`).
    public var output: GraphValue<Output> {
        GraphValue(template: ["$from": .string(key)], references: [ScopedKey(scope: scope, key: key)])
    }

    /// Part of the node's output, by key path (`{"$from": key, "select": "/total"}`).
    public func output<V>(_ keyPath: KeyPath<Output, V>) -> GraphValue<V> {
        output.field(keyPath)
    }

    public var scopedKey: ScopedKeyReference { ScopedKeyReference(ScopedKey(scope: scope, key: key)) }
}

/// Anything that names a node for `after`: a `NodeHandle` of any output type.
public protocol NodeReference: Sendable {
    var key: String { get }
    var scopedKey: ScopedKeyReference { get }
}

/// A node key and the group it belongs to (opaque).
public struct ScopedKeyReference: Sendable, Hashable {
    let value: ScopedKey
    init(_ value: ScopedKey) { self.value = value }
}
