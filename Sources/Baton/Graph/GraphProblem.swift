/// One thing wrong with a graph file: where (node and field) and what.
public struct GraphProblem: Sendable, Hashable, CustomStringConvertible {
    /// The node key, or nil for a problem with the graph as a whole.
    public let node: String?
    /// A path to the field, such as `input/image/$from`.
    public let field: String
    public let message: String

    public init(node: String?, field: String, message: String) {
        self.node = node
        self.field = field
        self.message = message
    }

    public var description: String {
        var place: [String] = []
        if let node { place.append("node '\(node)'") }
        if !field.isEmpty { place.append("field '\(field)'") }
        return place.isEmpty ? message : place.joined(separator: ", ") + ": " + message
    }
}
