/// A run-name filter (`--filter name=GLOB`): `*` any text, `?` one character, everything else itself.
/// Stored beside its SQL `LIKE` pattern (`\` escapes `%`, `_` and `\`), which the trigger matches.
public struct NameGlob: Sendable, Equatable {
    public let text: String
    /// The same filter as a `LIKE` pattern with PostgreSQL's default escape `\`.
    public let like: String

    /// The glob, or the problem: empty, longer than 200 characters, a control character, or `[` / `]`
    /// (character classes are not supported, and would silently match nothing as written).
    public static func parse(_ text: String) -> Result<NameGlob, WebhookProblem> {
        if text.isEmpty { return .failure(WebhookProblem("the name glob is empty (use `*` for every name, or leave the filter out)")) }
        let count = text.unicodeScalars.count
        if count > 200 { return .failure(WebhookProblem("the name glob has \(count) characters; at most 200")) }
        if text.unicodeScalars.contains(where: WebhookDraft.isControl) {
            return .failure(WebhookProblem("the name glob '\(text.debugDescription.dropFirst().dropLast())' has a control character"))
        }
        if text.contains("[") || text.contains("]") {
            return .failure(WebhookProblem("the name glob '\(text)' has '[' or ']': only `*` and `?` are special"))
        }
        var like = ""
        for c in text {
            switch c {
            case "*": like += "%"
            case "?": like += "_"
            case "%", "_", "\\": like += "\\\(c)"
            default: like.append(c)
            }
        }
        return .success(NameGlob(text: text, like: like))
    }

    /// Whether `name` matches (the same rule as the trigger's `LIKE`).
    public func matches(_ name: String) -> Bool {
        let pattern = Array(text)
        let name = Array(name)
        var p = 0
        var n = 0
        var star: Int?
        var mark = 0
        while n < name.count {
            if p < pattern.count, pattern[p] == "?" || pattern[p] == name[n] {
                p += 1
                n += 1
            } else if p < pattern.count, pattern[p] == "*" {
                star = p
                mark = n
                p += 1
            } else if let s = star {
                p = s + 1
                mark += 1
                n = mark
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }
}
