import BatonStore
import Foundation

/// The opaque cursors of the API's paged lists: a letter naming the list, then the place of the last
/// item shown. `n`, `w`, `d` and `a` carry a number (a node's position, a webhook's, delivery's or
/// audit entry's id), `k` a name's UTF-8 in hex (so any name fits the cursor's alphabet), `r` a run's
/// submission time in microseconds, `_` and its id. A cursor this server did not make is a 400.
enum PageCursor {
    /// The cursor `marker` and `number` make (`n12`, `d34`).
    static func text(_ marker: Character, _ number: Int64) -> String { "\(marker)\(number)" }

    /// The number a `marker` cursor carries, within `range`; nil without a cursor.
    static func number(_ cursor: String?, marker: Character, range: ClosedRange<Int64> = 0...Int64.max) throws -> Int64? {
        guard let cursor else { return nil }
        let digits = cursor.dropFirst()
        guard cursor.first == marker, !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber), let number = Int64(digits),
            range.contains(number)
        else { throw refusal(cursor) }
        return number
    }

    /// The cursor of a page of things listed by name.
    static func text(name: String) -> String {
        let digits = Array("0123456789abcdef")
        return "k" + String(name.utf8.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
    }

    /// The name after which a page starts; nil (from the first) without a cursor.
    static func name(_ cursor: String?) throws -> String? {
        guard let cursor else { return nil }
        let hex = Array(cursor.utf8.dropFirst())
        guard cursor.first == "k", hex.count % 2 == 0 else { throw refusal(cursor) }
        var bytes: [UInt8] = []
        for i in stride(from: 0, to: hex.count, by: 2) {
            guard let byte = UInt8(String(decoding: hex[i..<i + 2], as: UTF8.self), radix: 16) else { throw refusal(cursor) }
            bytes.append(byte)
        }
        guard !bytes.isEmpty else { throw refusal(cursor) }
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
        return (page, rest.count > limit ? page.last.map { text(name: name($0)) } : nil)
    }

    /// The cursor of a page of runs.
    static func text(run mark: RunPageMark) -> String { "r\(mark.micros)_\(mark.id)" }

    /// The run after which a page of runs starts; nil without a cursor.
    static func run(_ cursor: String?) throws -> RunPageMark? {
        guard let cursor else { return nil }
        let parts = cursor.dropFirst().split(separator: "_", omittingEmptySubsequences: false)
        guard cursor.first == "r", parts.count == 2, let micros = try? number("r" + parts[0], marker: "r"), parts[1].count == 36,
            UUID(uuidString: String(parts[1])) != nil
        else { throw refusal(cursor) }
        return RunPageMark(micros: micros, id: parts[1].lowercased())
    }

    private static func refusal(_ cursor: String) -> APIError {
        APIError.badRequest("cursor: '\(cursor.prefix(100))' is not a cursor this server gave (use next_cursor as given)")
    }
}
