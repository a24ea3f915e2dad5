extension MemoryStore {
    /// A `CoordinatorStore` call, as fault injection names it.
    public enum Operation: String, Sendable, Equatable, CaseIterable {
        case requireSchema, tryLeadership, listenForWork, notifications, liveWorkers, loadHolds, activeRunIDs, openRequests
        case loadRun, apply, cacheLookup, failRun
        /// Whichever call comes next.
        case any
    }
}
