import Foundation

/// An RFC 6901 JSON Pointer such as `/items/0/name`. The empty pointer names the whole document.
public struct JSONPointer: Sendable, Hashable, Codable, CustomStringConvertible {
    public let tokens: [String]

    public init(tokens: [String]) { self.tokens = tokens }

    /// Parses pointer text; it must be empty or start with `/`, and `~` may only appear as `~0` or `~1`.
    public init(parsing text: String) throws(PointerError) {
        if text.isEmpty { tokens = []; return }
        guard text.hasPrefix("/") else { throw PointerError(pointer: text, reason: "must be empty or start with '/'") }
        var result: [String] = []
        // Split on scalars, not characters: "/" followed by a combining mark is still a separator.
        for raw in text.unicodeScalars.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            var token = String.UnicodeScalarView()
            var iterator = raw.makeIterator()
            while let c = iterator.next() {
                if c == "~" {
                    switch iterator.next() {
                    case "0": token.append("~")
                    case "1": token.append("/")
                    default: throw PointerError(pointer: text, reason: "'~' must be followed by 0 or 1")
                    }
                } else {
                    token.append(c)
                }
            }
            result.append(String(token))
        }
        tokens = result
    }

    public var description: String {
        tokens.map { token in
            guard token.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else { return "/" + token }
            return "/" + token.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
        }.joined()
    }

    /// The part of `document` this pointer names, or an error saying which step is missing.
    public func resolve(in document: JSON) throws(PointerError) -> JSON {
        var current = document
        for (depth, token) in tokens.enumerated() {
            let here = JSONPointer(tokens: Array(tokens.prefix(depth))).description
            switch current {
            case let .object(o):
                guard let next = o[token] else {
                    throw PointerError(pointer: description, reason: "no member \"\(token)\" at '\(here)'")
                }
                current = next
            case let .array(a):
                guard let i = Int(token), token == String(i), i >= 0, i < a.count else {
                    throw PointerError(pointer: description, reason: "no element \"\(token)\" at '\(here)' (array of \(a.count))")
                }
                current = a[i]
            default:
                throw PointerError(pointer: description, reason: "'\(here)' is a \(current.kindName), not an object or array")
            }
        }
        return current
    }
}

/// A malformed pointer, or one whose target is missing.
public struct PointerError: Error, Sendable, Equatable, CustomStringConvertible {
    public let pointer: String
    public let reason: String
    public var description: String { "pointer '\(pointer)': \(reason)" }
}
