/// Inside a `map` template: the element the child runs for, and its index.
public struct MapItem<Element>: Sendable {
    init() {}

    /// The whole element (`{"$item": ""}`).
    public var item: GraphValue<Element> { GraphValue(template: ["$item": ""], usesItem: true) }

    /// Part of the element (`{"$item": "/path"}`).
    public func item<V>(_ keyPath: KeyPath<Element, V>) -> GraphValue<V> { item.field(keyPath) }

    /// The element's index, from 0 (`{"$index": true}`).
    public var index: GraphValue<Int> { GraphValue(template: ["$index": true], usesItem: true) }
}
