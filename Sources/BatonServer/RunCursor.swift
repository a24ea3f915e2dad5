import BatonStore
import Foundation

/// The opaque cursor of a page of runs: `r`, the last run's submission time in microseconds, `_`, its
/// id. A cursor this server did not make is a 400.
enum RunCursor {
    static func text(_ mark: RunPageMark) -> String { "r\(mark.micros)_\(mark.id)" }

    static func mark(_ cursor: String?) throws -> RunPageMark? {
        guard let cursor else { return nil }
        let parts = cursor.dropFirst().split(separator: "_", omittingEmptySubsequences: false)
        guard cursor.first == "r", parts.count == 2, let micros = Int64(parts[0]), micros >= 0, parts[0].allSatisfy(\.isNumber),
            parts[1].count == 36, UUID(uuidString: String(parts[1])) != nil
        else {
            throw APIError.badRequest("cursor: '\(cursor.prefix(100))' is not a cursor this server gave (use next_cursor as given)")
        }
        return RunPageMark(micros: micros, id: parts[1].lowercased())
    }
}
