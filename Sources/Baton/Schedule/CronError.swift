/// Why a cron expression was refused: the field (nil for the expression as a whole), the text at
/// fault and what is wrong with it, as one line.
public struct CronError: Error, Sendable, Equatable, CustomStringConvertible {
    public let field: CronField?
    public let text: String
    public let problem: String

    public init(field: CronField?, text: String, problem: String) {
        self.field = field
        self.text = text
        self.problem = problem
    }

    public var description: String {
        guard let field else { return "cron expression '\(text)': \(problem)" }
        return "cron \(field.name) field '\(text)': \(problem)"
    }
}
