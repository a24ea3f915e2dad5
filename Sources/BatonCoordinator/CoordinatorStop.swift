/// The coordinator stopped because retrying cannot help; `message` is the one line to show.
public struct CoordinatorStop: Error, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
