import BatonPostgres
import BatonSeams

/// `StoreFailure` decided from PostgreSQL's SQLSTATE.
extension StoreFailure {
    /// The decision for `error`, thrown by a `Store` method. A `StoreError` names a run whose stored
    /// state cannot be read: that run's data is at fault.
    public init(_ error: Error) {
        if let error = error as? PostgresError {
            switch error.disposition {
            case .reconnect: self = .reconnect
            case .retry: self = .retry
            case .rejectData: self = .rejectData
            case .fatal: self = .fatal
            }
        } else if error is StoreError {
            self = .rejectData
        } else {
            self = .fatal
        }
    }

    /// The SQLSTATE of `error`, if the server sent one (for logs and messages).
    public static func sqlState(of error: Error) -> String? { (error as? PostgresError)?.sqlState }
}
