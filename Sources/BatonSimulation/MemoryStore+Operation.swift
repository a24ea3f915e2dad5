extension MemoryStore {
    /// A `CoordinatorStore` call, as fault injection names it.
    public enum Operation: String, Sendable, Equatable, CaseIterable {
        /// `MemoryStore.connect()`: opening a session.
        case connect
        case requireSchema, listenForWork, notifications, liveWorkers, loadHolds, grantWaiting, activeRunIDs, openRequests
        case loadRun, apply, cacheLookup, failRun
        /// Reading, taking, renewing or releasing partition leases.
        case partitions
        /// Whichever call comes next.
        case any
    }
}
