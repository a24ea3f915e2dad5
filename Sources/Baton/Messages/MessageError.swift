/// A malformed message on one of Baton's queues, or one of a version this build does not read.
public struct MessageError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
