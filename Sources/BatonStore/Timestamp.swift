import Foundation

/// Timestamps as text that PostgreSQL's timestamptz accepts and that sorts and reads well.
enum Timestamp {
    static func text(_ date: Date) -> String {
        Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(date)
    }
}
