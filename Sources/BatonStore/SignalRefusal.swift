/// Why `Store.signal` refused a signal, in one line naming what is wrong. Nothing was stored.
public struct SignalRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
