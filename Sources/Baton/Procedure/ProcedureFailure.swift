/// An error a procedure throws to say why it failed, and whether trying again could help.
public struct ProcedureFailure: Error, Sendable, CustomStringConvertible {
    public let message: String
    public let permanent: Bool

    public init(_ message: String, permanent: Bool = false) {
        self.message = message
        self.permanent = permanent
    }

    public var description: String { message }
}
