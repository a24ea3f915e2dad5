import BatonPostgres

/// Errors as PostgreSQL (through libpq) raises them, for a twin of the store (the simulator's
/// `MemoryStore`): what it throws is what `Store` throws, so `StoreFailure` classifies it by its
/// SQLSTATE exactly as in production, and nothing outside the store imports the PostgreSQL wrapper.
public enum DatabaseError {
    /// An error the server raised for a statement, with its SQLSTATE (and detail line).
    public static func statement(_ message: String, sqlState: String, detail: String? = nil) -> any Error {
        PostgresError(kind: .query, message: message, sqlState: sqlState, detail: detail)
    }

    /// The connection is gone (`08006`: lost, `08003`: closed).
    public static func connection(_ message: String, sqlState: String) -> any Error {
        PostgresError(kind: .connection, message: message, sqlState: sqlState)
    }
}
