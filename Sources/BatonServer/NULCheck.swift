import Baton

/// PostgreSQL stores no U+0000 (NUL) in `text` or `jsonb`, and a text parameter ends at one: a body
/// holding one is refused (422) before anything is stored, rather than failing in the database (503)
/// or being cut short.
enum NULCheck {
    /// 422 naming the first member (a JSON Pointer) whose name or string value holds a NUL.
    static func refuse(_ body: JSONObject) throws {
        if let pointer = first(in: .object(body), at: "") {
            throw APIError.invalid(
                "\(pointer.isEmpty ? "/" : pointer): holds U+0000 (NUL), which cannot be stored",
                details: [["message": "NUL", "field": .string(pointer)]])
        }
    }

    static func first(in json: JSON, at pointer: String) -> String? {
        switch json {
        case let .string(text): return text.unicodeScalars.contains("\u{0}") ? pointer : nil
        case let .array(items):
            for (i, item) in items.enumerated() { if let found = first(in: item, at: "\(pointer)/\(i)") { return found } }
            return nil
        case let .object(members):
            for (key, value) in members {
                let here = pointer + "/" + key.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
                if key.unicodeScalars.contains("\u{0}") { return here }
                if let found = first(in: value, at: here) { return found }
            }
            return nil
        default: return nil
        }
    }
}
