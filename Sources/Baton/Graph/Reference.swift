/// A `$from` reference inside a node's input: the named node's output, or the
/// part of it that `select` names.
public struct Reference: Sendable, Hashable, Codable {
    public let node: String
    public let select: JSONPointer

    public init(node: String, select: JSONPointer = JSONPointer(tokens: [])) {
        self.node = node
        self.select = select
    }
}
