/// One pause: what kind of thing is paused, and its name (a procedure's or pool's name, a run's id).
public struct PauseTarget: Sendable, Hashable, CustomStringConvertible {
    public var kind: PauseKind
    public var name: String

    public init(_ kind: PauseKind, _ name: String) {
        self.kind = kind
        self.name = name
    }

    /// "procedure acme.greet", "pool gpu", "run 3f…".
    public var description: String { "\(kind.rawValue) \(name)" }

    /// The longest name a pause may have (bytes of UTF-8), as long as the longest procedure name.
    public static let maxNameBytes = 200

    /// Why `name` cannot name a pause of `kind`, or nil: empty, too long, or with control characters
    /// or white space (no procedure, pool or run id has them).
    public static func problem(kind: PauseKind, name: String) -> String? {
        if name.isEmpty { return "the \(kind.rawValue) name is empty" }
        if name.utf8.count > maxNameBytes { return "the \(kind.rawValue) name is longer than \(maxNameBytes) bytes" }
        if name.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.properties.generalCategory == .control }) {
            return "the \(kind.rawValue) name '\(name)' has white space or control characters"
        }
        return nil
    }
}
