/// The names a node's references may use: its siblings first, then the nodes of each enclosing
/// scope (a group's children see the group's siblings, and so on out to the graph).
struct NodeScope: Sendable {
    /// Innermost last: the key prefix of a level (`""`, `g/`, `g/h/`) and its local keys.
    private var levels: [(prefix: String, keys: Set<String>)] = []

    /// The key prefix of the innermost level.
    var prefix: String { levels.last?.prefix ?? "" }

    /// This scope with one more level inside it.
    func entering(prefix: String, keys: Set<String>) -> NodeScope {
        var inner = self
        inner.levels.append((prefix, keys))
        return inner
    }

    /// Why a name does not resolve.
    enum Failure: Error {
        case missing(String)
        case itself
        case enclosing(String)

        func message(verb: String) -> String {
            switch self {
            case let .missing(name): return "refers to missing node '\(name)'"
            case .itself: return verb == "come after" ? "a node cannot come after itself" : "a node cannot refer to its own output"
            case let .enclosing(group): return "refers to '\(group)', a group this node is in (it ends only after this node)"
            }
        }
    }

    /// The absolute key `name` stands for, seen from node `node`.
    func resolve(_ name: String, from node: String) -> Result<String, Failure> {
        for level in levels.reversed() where level.keys.contains(name) {
            let key = level.prefix + name
            if key == node { return .failure(.itself) }
            if Self.isWithin(node, key) { return .failure(.enclosing(key)) }
            return .success(key)
        }
        return .failure(.missing(name))
    }

    /// True if `key` is a child of `group` at any depth.
    static func isWithin(_ key: String, _ group: String) -> Bool {
        key.count > group.count && key.hasPrefix(group) && key[key.index(key.startIndex, offsetBy: group.count)] == "/"
    }
}
