/// An error already phrased for the user.
struct CLIFailure: Error, CustomStringConvertible {
    var description: String { message }
    let message: String
    var exitCode: Int32 = 1
    init(_ message: String, exitCode: Int32 = 1) {
        self.message = message
        self.exitCode = exitCode
    }
}
