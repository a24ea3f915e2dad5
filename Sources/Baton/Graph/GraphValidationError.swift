/// A graph was rejected; `problems` lists everything found, not just the first.
public struct GraphValidationError: Error, Sendable, CustomStringConvertible {
    public let problems: [GraphProblem]
    public init(problems: [GraphProblem]) { self.problems = problems }

    public var description: String {
        let n = problems.count
        return "invalid graph (\(n) problem\(n == 1 ? "" : "s")):\n" + problems.map { "  - \($0)" }.joined(separator: "\n")
    }
}
