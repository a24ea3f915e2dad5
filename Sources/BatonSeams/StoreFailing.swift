/// An error a store raises, which says what its caller does about it (`StoreFailure`) and, if the
/// database sent one, its SQLSTATE (for logs, metrics and messages).
public protocol StoreFailing: Error {
    var storeFailure: StoreFailure { get }
    var sqlState: String? { get }
}
