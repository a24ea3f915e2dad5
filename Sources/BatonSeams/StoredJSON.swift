import Baton

/// A JSON column of a stored row as a store has it: text from PostgreSQL, a value from the memory twin.
public enum StoredJSON: Sendable {
    case text(String)
    case value(JSON)

    /// The value (text parsed with `maxDepth`).
    func parsed(maxDepth: Int) throws -> JSON {
        switch self {
        case let .text(text): try JSONParser.parse(text, maxDepth: maxDepth)
        case let .value(value): value
        }
    }

    /// The serialized bytes.
    var bytes: [UInt8] {
        switch self {
        case let .text(text): Array(text.utf8)
        case let .value(value): value.serializedBytes()
        }
    }
}
