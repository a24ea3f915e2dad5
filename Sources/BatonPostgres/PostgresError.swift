import Foundation

/// An error reported by libpq or the PostgreSQL server.
///
/// `message` is always a single trimmed line, and never contains a password:
/// connection errors echo the target only through ``redactedURL(_:)``.
public struct PostgresError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, broadly.
    public enum Kind: String, Sendable, Equatable {
        /// Could not connect, or the connection is closed or was lost.
        case connection
        /// The server rejected a statement (see ``PostgresError/sqlState``).
        case query
        /// libpq returned something this wrapper does not handle (COPY, bad response).
        case protocolViolation
        /// The caller misused the API (nested transaction, NUL byte in a parameter).
        case invalidUsage
    }

    /// What went wrong, broadly.
    public var kind: Kind
    /// The server's primary message (or libpq's), one line, trimmed.
    public var message: String
    /// The five-character SQLSTATE code (`PG_DIAG_SQLSTATE`), when the server sent one.
    public var sqlState: String?
    /// The server's optional detail message.
    public var detail: String?
    /// The server's optional hint.
    public var hint: String?

    /// Creates an error; every text is flattened to one trimmed line.
    public init(kind: Kind, message: String, sqlState: String? = nil, detail: String? = nil, hint: String? = nil) {
        self.kind = kind
        self.message = singleLine(message)
        self.sqlState = sqlState.map(singleLine).flatMap { $0.isEmpty ? nil : $0 }
        self.detail = detail.map(singleLine).flatMap { $0.isEmpty ? nil : $0 }
        self.hint = hint.map(singleLine).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// One line, e.g. `postgres: relation "x" does not exist (42P01)`.
    public var description: String {
        var text = "postgres: \(message)"
        if let sqlState { text += " (\(sqlState))" }
        if let detail { text += "; detail: \(detail)" }
        if let hint { text += "; hint: \(hint)" }
        return text
    }

    /// The SQLSTATE as a code, when the server sent one.
    public var code: SQLState? { sqlState.map(SQLState.init(rawValue:)) }

    /// What to do about this error (the table is ``SQLState/disposition``): a lost or broken
    /// connection means reconnect; a server error is decided by its SQLSTATE; misuse of the API
    /// (and a server error without a code) is fatal.
    public var disposition: SQLState.Disposition {
        switch kind {
        case .connection, .protocolViolation: return .reconnect
        case .invalidUsage: return .fatal
        case .query:
            guard let code else { return .fatal }
            return isConnectionLost ? .reconnect : code.disposition
        }
    }

    /// True when the connection is unusable and the caller should reconnect:
    /// a `.connection` error (which includes any failure after which libpq
    /// reported `CONNECTION_BAD`), SQLSTATE class 08, or an administrator
    /// shutdown (57P01, 57P02, 57P03).
    public var isConnectionLost: Bool {
        if kind == .connection { return true }
        guard let sqlState else { return false }
        return sqlState.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(sqlState)
    }
}

/// Joins the non-empty trimmed lines of `text` with single spaces.
func singleLine(_ text: String) -> String {
    text.split(whereSeparator: \.isNewline)
        .map { $0.trimmingCharacters(in: .whitespaces) }
        .filter { !$0.isEmpty }
        .joined(separator: " ")
}
