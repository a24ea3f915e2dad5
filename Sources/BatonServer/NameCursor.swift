/// The opaque cursor of a page of things listed by name (schedules, triggers): `k` and the last
/// name's UTF-8 in hex, so any name fits the cursor's alphabet. A cursor this server did not make is a 400.
enum NameCursor {
    static func text(_ name: String) -> String {
        let digits = Array("0123456789abcdef")
        return "k" + String(name.utf8.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
    }

    /// The name after which the page starts; nil (from the first) without a cursor.
    static func name(_ cursor: String?) throws -> String? {
        guard let cursor else { return nil }
        let refused = APIError.badRequest("cursor: '\(cursor.prefix(100))' is not a cursor this server gave (use next_cursor as given)")
        let hex = Array(cursor.utf8.dropFirst())
        guard cursor.first == "k", hex.count % 2 == 0 else { throw refused }
        var bytes: [UInt8] = []
        for i in stride(from: 0, to: hex.count, by: 2) {
            guard let byte = UInt8(String(decoding: hex[i..<i + 2], as: UTF8.self), radix: 16) else { throw refused }
            bytes.append(byte)
        }
        guard !bytes.isEmpty else { throw refused }
        // Only a place in the order: bytes that are not UTF-8 still sort, and a NUL (no name holds one,
        // and PostgreSQL takes none) is left out.
        return String(decoding: bytes.filter { $0 != 0 }, as: UTF8.self)
    }

    /// One page of `items` (sorted by name) after `cursor`: at most `limit`, and the cursor of the next
    /// page when this one is full.
    static func page<T>(_ items: [T], name: (T) -> String, after cursor: String?, limit: Int) throws -> (items: [T], next: String?) {
        let after = try Self.name(cursor)
        let rest = items.filter { after == nil || name($0) > after! }
        let page = Array(rest.prefix(limit))
        return (page, rest.count > limit ? page.last.map { text(name($0)) } : nil)
    }
}
