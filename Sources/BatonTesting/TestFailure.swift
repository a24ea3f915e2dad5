/// A test expectation that did not hold, with a message saying what was expected and found.
public struct TestFailure: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
