/// What a caller of the store does about an error, decided from its SQLSTATE (the table is
/// `SQLState.disposition` in BatonPostgres) so that nothing outside the store looks at PostgreSQL's codes.
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
}
