/// The opaque cursor of a page of nodes: the last node's position, as `n` and its digits. A cursor
/// this server did not make is a 400.
enum NodeCursor {
    static func text(_ position: Int) -> String { "n\(position)" }

    /// The position after which the page starts: before the first (positions count from 0) without a cursor.
    static func position(_ cursor: String?) throws -> Int {
        guard let cursor else { return -1 }
        guard cursor.first == "n", let position = Int(cursor.dropFirst()), (0...Int(Int32.max)).contains(position) else {
            throw APIError.badRequest("cursor: '\(cursor.prefix(100))' is not a cursor this server gave (use next_cursor as given)")
        }
        return position
    }
}
