/// A procedure's name with its version, as graphs write it and tasks are routed by it: `acme.greet`
/// (version 1, or unpinned in a graph) and `acme.greet@2`. Version 1 keeps the plain name everywhere
/// (heartbeats, queues, `baton.nodes.procedure`), so workers and runs from before versions are untouched.
public struct ProcedureName: Sendable, Hashable, CustomStringConvertible {
    /// The name without its version, as `Procedure.name` says it.
    public let base: String
    public let version: Int
    /// Whether the written name said its version (`@N`); an unpinned graph node is planned at submit.
    public let pinned: Bool

    /// The highest version a name may carry.
    public static let maxVersion = 99_999

    public init(base: String, version: Int = 1, pinned: Bool = true) {
        self.base = base
        self.version = version
        self.pinned = pinned
    }

    /// Reads `name` or `name@N` (N a whole number from 1 to `maxVersion`, no leading zero); nil if
    /// the `@` suffix is not one.
    public init?(parsing text: String) {
        guard let at = text.lastIndex(of: "@") else {
            self.init(base: text, version: 1, pinned: false)
            return
        }
        let base = String(text[..<at])
        let digits = text[text.index(after: at)...]
        guard !base.isEmpty, !digits.isEmpty, digits.count <= 5, digits.allSatisfy({ $0.isASCII && $0.isNumber }), digits.first != "0",
            let version = Int(digits), version <= Self.maxVersion
        else { return nil }
        self.init(base: base, version: version, pinned: true)
    }

    /// The name tasks are routed and workers announce by: `base` for version 1, else `base@N`.
    public var routed: String { Self.routed(base, version: version) }

    public var description: String { routed }

    /// `base` for version 1, else `base@N`.
    public static func routed(_ base: String, version: Int) -> String { version == 1 ? base : "\(base)@\(version)" }

    /// The version a routed name carries (1 for a plain name or one that is not a name with a version).
    public static func version(ofRouted name: String) -> Int { ProcedureName(parsing: name)?.version ?? 1 }

    /// The names a graph may write for procedures served under the routed `names`: each plain name
    /// (planned at submit) and each `name@N` pin, `@1` included.
    public static func writable(_ names: some Sequence<String>) -> Set<String> {
        var result = Set<String>()
        for name in names {
            let parsed = ProcedureName(parsing: name) ?? ProcedureName(base: name, pinned: false)
            result.insert(parsed.base)
            result.insert("\(parsed.base)@\(parsed.version)")
        }
        return result
    }

    /// One-line description of what a bad pin should look like.
    static func badPin(_ text: String) -> String {
        "'\(text)' has a bad version: a pin is NAME@N with N a whole number from 1 to \(maxVersion) without leading zeros (as in acme.greet@2)"
    }
}
