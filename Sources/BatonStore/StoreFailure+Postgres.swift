import BatonPostgres
import BatonSeams

/// PostgreSQL's errors say what their caller does about them, from their SQLSTATE.
extension PostgresError: StoreFailing {
    public var storeFailure: StoreFailure {
        switch disposition {
        case .reconnect: .reconnect
        case .retry: .retry
        case .rejectData: .rejectData
        case .fatal: .fatal
        }
    }
}
