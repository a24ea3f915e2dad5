/// `condition`: a procedure evaluated on a worker before the node.
public struct ConditionSpec: Sendable, Equatable, Codable {
    public let procedure: String
    public let input: Template
    public let negate: Bool
}
