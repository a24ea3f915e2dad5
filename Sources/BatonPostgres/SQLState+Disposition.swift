extension SQLState {
    /// What a client does about an error, decided from its SQLSTATE alone.
    public enum Disposition: String, Sendable, Equatable {
        /// The session is gone (class 08, or the server is shutting down): connect again, then retry.
        case reconnect
        /// A passing condition (serialization failure, deadlock, lack of resources, a cancelled or
        /// timed-out statement, a lock not available): roll back, wait, retry the same work.
        case retry
        /// The statement's data is at fault (class 22 data exception, 23 integrity constraint,
        /// 54 program limit): the same data fails again, so fail what it belongs to, alone.
        case rejectData
        /// Anything else (a missing table, a permission, a bug): retrying cannot help; stop with one line.
        case fatal
    }

    /// The decision table. docs/operations.md shows it to users; keep both in step.
    public var disposition: Disposition {
        switch errorClass {
        case "08": return .reconnect
        case "57":
            // An administrator or crash shutdown ends the session; a cancelled or timed-out statement does not.
            return [.adminShutdown, .crashShutdown, .cannotConnectNow].contains(self) ? .reconnect : .retry
        case "40", "53": return .retry
        case "55": return self == .lockNotAvailable ? .retry : .fatal
        case "22", "23", "54": return .rejectData
        // Baton's fencing: nothing was written, and what this session believes it owns is stale: connect and load again.
        case "BT": return .reconnect
        default: return .fatal
        }
    }
}
