import Baton
import BatonStore
import Foundation

/// Printing helpers shared by the commands.
enum Output {
    static func json(_ value: JSON) { print(value.prettyPrinted()) }

    /// Prints a record type as JSON (the record types name their keys in snake_case).
    static func json<T: Encodable>(_ value: T) throws { print(try encode(value).prettyPrinted()) }

    static func encode<T: Encodable>(_ value: T) throws -> JSON { try JSON(encoding: value) }

    static func error(_ line: String) { FileHandle.standardError.write(Data((line + "\n").utf8)) }

    /// A fixed-width table: one header line, then rows.
    static func table(_ header: [String], _ rows: [[String]]) {
        var widths = header.map(\.count)
        for row in rows { for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.count) } }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { i, c in i == cells.count - 1 ? c : c.padding(toLength: widths[i], withPad: " ", startingAt: 0) }
                .joined(separator: "  ")
        }
        print(line(header))
        for row in rows { print(line(row)) }
    }

    /// One event as `baton events` and `baton watch` print it.
    static func eventLine(_ e: EventRow) -> String {
        let detail =
            e.detail.objectValue.map { o in o.members.map { "\($0.key)=\($0.value.stringValue ?? $0.value.serialized())" }.joined(separator: " ") }
            ?? ""
        return "\(e.at)  \(e.node ?? "-")  \(e.kind)  \(detail)"
    }

    /// `text` cut to `limit` characters with an ellipsis.
    static func truncate(_ text: String, _ limit: Int) -> String {
        text.count <= limit ? text : String(text.prefix(limit - 1)) + "…"
    }

    /// A timestamp as PostgreSQL prints it, shortened to seconds.
    static func time(_ text: String?) -> String {
        guard let text else { return "-" }
        return String(text.prefix(19))
    }
}
