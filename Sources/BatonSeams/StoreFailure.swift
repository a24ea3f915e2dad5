/// What a caller of the store does about an error, decided by the store from its SQLSTATE (the
/// table is `SQLState.disposition` in BatonPostgres) so that nothing outside the store looks at PostgreSQL's codes.
public enum StoreFailure: String, Sendable, Equatable {
    /// The connection is gone: connect again and resume.
    case reconnect
    /// A passing condition (serialization failure, deadlock, disk full, statement timeout, lock not
    /// available): nothing was written; wait with back-off and do the same again.
    case retry
    /// The data of what was written is at fault (or a stored run cannot be read): fail that run alone.
    case rejectData
    /// Retrying cannot help (a missing table, a permission, a bug): stop with one clear line.
    case fatal

    /// The decision for `error`, thrown by a store (its `StoreFailing` class). A `StoreError` names
    /// a run whose stored state cannot be read: that run's data is at fault. Anything else is fatal.
    public init(_ error: Error) {
        if let error = error as? any StoreFailing {
            self = error.storeFailure
        } else if error is StoreError {
            self = .rejectData
        } else {
            self = .fatal
        }
    }

    /// The SQLSTATE of `error`, if the server sent one (for logs and messages).
    public static func sqlState(of error: Error) -> String? { (error as? any StoreFailing)?.sqlState }
}
