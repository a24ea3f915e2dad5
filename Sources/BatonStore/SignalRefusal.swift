/// Why `Store.signal` refused a signal, in one line naming what is wrong. Nothing was stored.
public struct SignalRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    /// The run or the node does not exist (rather than refusing a signal in its state).
    public let missing: Bool
    public init(_ description: String, missing: Bool = false) {
        self.description = description
        self.missing = missing
    }
}
