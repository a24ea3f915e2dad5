import CLibPQ

extension PostgresError {
    /// The error libpq recorded on `conn` (`PQerrorMessage`), e.g. after a failed
    /// connect, `PQconsumeInput` or a nil result. Always a `.connection` error when
    /// the connection has gone bad.
    static func fromConnection(_ conn: OpaquePointer, kind: Kind = .connection, context: String? = nil) -> PostgresError {
        var message = stripSeverity(PQerrorMessage(conn).map { String(cString: $0) } ?? "")
        if message.isEmpty { message = "unknown libpq error" }
        if let context { message = "\(context): \(message)" }
        let kind: Kind = PQstatus(conn) == CONNECTION_BAD ? .connection : kind
        return PostgresError(kind: kind, message: message)
    }

    /// The error carried by a failed `result`, with the server's diagnostic fields.
    /// Becomes a `.connection` error if the connection went bad along the way.
    static func fromResult(_ result: OpaquePointer, connection conn: OpaquePointer) -> PostgresError {
        func field(_ code: Character) -> String? {
            PQresultErrorField(result, Int32(code.asciiValue!)).map { String(cString: $0) }
        }
        let fallback = PQresultErrorMessage(result).map { stripSeverity(String(cString: $0)) }
        let message = field("M") ?? fallback.flatMap { $0.isEmpty ? nil : $0 } ?? "unknown server error"
        let kind: Kind = PQstatus(conn) == CONNECTION_BAD ? .connection : .query
        return PostgresError(kind: kind, message: message, sqlState: field("C"), detail: field("D"), hint: field("H"))
    }
}

/// Drops libpq's `ERROR:  ` / `FATAL:  ` prefix from a message.
private func stripSeverity(_ text: String) -> String {
    let line = singleLine(text)
    for prefix in ["ERROR:", "FATAL:", "PANIC:"] where line.hasPrefix(prefix) {
        return singleLine(String(line.dropFirst(prefix.count)))
    }
    return line
}
