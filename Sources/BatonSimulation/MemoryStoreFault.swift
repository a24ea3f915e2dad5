import BatonStore

/// A failure `MemoryStore` injects into the next calls of one operation: an error as PostgreSQL
/// raises it (`DatabaseError`), whose SQLSTATE `StoreFailure` classifies as production would.
struct MemoryStoreFault {
    let operation: MemoryStore.Operation
    let failure: StoreFailure
    /// The SQLSTATE to report; nil: the usual one of `failure`'s class.
    let sqlState: String?
    /// Calls still to fail.
    var remaining: Int
    /// For `apply` and `failRun`: the write commits, then the reply is lost (the caller sees `failure`).
    let afterCommit: Bool

    /// The error a call sees.
    var error: any Error { Self.error(failure, sqlState: sqlState) }

    /// An error of `failure`'s class: a lost connection (08006), a serialization failure
    /// (40001), an invalid parameter value (22023) or an insufficient privilege (42501), unless `sqlState` is given.
    static func error(_ failure: StoreFailure, sqlState: String? = nil) -> any Error {
        switch failure {
        case .reconnect:
            return DatabaseError.connection("server closed the connection unexpectedly (injected by MemoryStore)", sqlState: sqlState ?? "08006")
        case .retry:
            return DatabaseError.statement(
                "could not serialize access due to concurrent update (injected by MemoryStore)", sqlState: sqlState ?? "40001")
        case .rejectData:
            return DatabaseError.statement("invalid parameter value (injected by MemoryStore)", sqlState: sqlState ?? "22023")
        case .fatal:
            return DatabaseError.statement("permission denied (injected by MemoryStore)", sqlState: sqlState ?? "42501")
        }
    }
}
