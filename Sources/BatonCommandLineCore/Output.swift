import Baton
import Foundation

/// Printing helpers shared by the commands.
public enum Output {
    public static func json(_ value: JSON) { print(value.prettyPrinted()) }

    /// Prints a record type as JSON (the record types name their keys in snake_case).
    public static func json<T: Encodable>(_ value: T) throws { print(try encode(value).prettyPrinted()) }

    public static func encode<T: Encodable>(_ value: T) throws -> JSON { try JSON(encoding: value) }

    public static func error(_ line: String) { FileHandle.standardError.write(Data((line + "\n").utf8)) }

    /// A fixed-width table: one header line, then rows.
    public static func table(_ header: [String], _ rows: [[String]]) {
        for line in TextTable.lines(header, rows) { print(line) }
    }

    /// `text` cut to `limit` characters with an ellipsis.
    public static func truncate(_ text: String, _ limit: Int) -> String { TextTable.truncate(text, limit) }

    /// A timestamp as PostgreSQL prints it, shortened to seconds.
    public static func time(_ text: String?) -> String {
        guard let text else { return "-" }
        return String(text.prefix(19))
    }
}
