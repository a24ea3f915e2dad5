/// A problem a user can cause or see when talking to the store.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
