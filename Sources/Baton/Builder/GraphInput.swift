/// The run's input, declared with typed defaults by `GraphBuilder.declareInput(_:)`:
/// `value(\.customer)` reads `{"$input": "/customer"}`, typed by the key path.
public struct GraphInput<Input>: Sendable {
    init() {}

    /// The whole run input (`{"$input": ""}`).
    public var whole: GraphValue<Input> { GraphValue(template: ["$input": ""]) }

    /// A field of the run input.
    public func value<V>(_ keyPath: KeyPath<Input, V>) -> GraphValue<V> { whole.field(keyPath) }
}
