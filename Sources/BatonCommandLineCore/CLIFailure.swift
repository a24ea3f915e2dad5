/// An error already phrased for the user.
public struct CLIFailure: Error, CustomStringConvertible {
    public var description: String { message }
    public let message: String
    public var exitCode: Int32 = 1
    public init(_ message: String, exitCode: Int32 = 1) {
        self.message = message
        self.exitCode = exitCode
    }
}
