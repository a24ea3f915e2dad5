/// A YAML text that is not valid YAML, or that has no JSON meaning, with where.
public struct YAMLError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where the problem is, when YAML says (libyaml reports almost everything with a place).
    public let mark: YAMLMark?
    public let message: String

    public init(mark: YAMLMark?, message: String) {
        self.mark = mark
        self.message = message
    }

    /// `LINE:COLUMN: message`; prefix the file name for the `FILE:LINE:COL: message` form.
    public var description: String { mark.map { "\($0): \(message)" } ?? message }
}
