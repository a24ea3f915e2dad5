/// Why an injected value does not fit where it goes, as precisely as the shapes tell: a
/// different type, a required member the object lacks (with the members it has), or a member
/// (or the items of an array) that does not fit in turn.
indirect enum TypeMismatch: Equatable, Sendable {
    case types(expected: TypeSchema, found: String)
    case missing(member: String, has: [String])
    case member(String, TypeMismatch)
    case items(TypeMismatch)

    /// The problem's text, with `source` (`output of 'list'`) saying where the value comes from.
    func message(source: String) -> String {
        switch self {
        case let .types(expected, found):
            return "expected \(expected.summary), found \(found) (\(source))"
        case let .missing(member, has):
            let members = has.isEmpty ? "no members" : has.map { "'\($0)'" }.joined(separator: ", ")
            return "missing member '\(member)' (\(source) has \(members))"
        case .member:
            var path: [String] = []
            var inner = self
            while case let .member(name, next) = inner {
                path.append(name)
                inner = next
            }
            return "member '\(path.joined(separator: "/"))': " + inner.message(source: source)
        case let .items(inner):
            return "each item: " + inner.message(source: source)
        }
    }
}
