import BatonStore

extension MemoryStore {
    /// Fails the next `count` calls of `operation` (on any connection) with an error (`DatabaseError`) of
    /// `failure`'s class (or of `sqlState`), which `StoreFailure(error)` classifies as production
    /// would. A failing call changes nothing; a `.reconnect` failure also ends the caller's session.
    /// With `afterCommit`, a write (`apply`, `failRun`) commits and then fails: the reply was lost.
    public func failNext(
        _ operation: Operation, with failure: StoreFailure, count: Int = 1, sqlState: String? = nil, afterCommit: Bool = false
    ) {
        guard count > 0 else { return }
        faults.append(MemoryStoreFault(operation: operation, failure: failure, sqlState: sqlState, remaining: count, afterCommit: afterCommit))
    }

    /// Forgets every fault `failNext` scheduled and that has not happened yet.
    public func clearFaults() { faults = [] }

    /// Ends every open session, as a database restart does: each later call on them fails with a
    /// connection error.
    public func dropConnections() {
        for id in connections.keys.sorted() {
            let connection = connections[id]!
            connection.dropConnection()
            endSession(connection)  // a session cut off ends too: the server restarted
        }
        severed = []
    }

    /// Cuts the network between the database and the sessions `ids` (one process's): each later call
    /// on them fails with a connection error, as the client's socket times out, but the database does
    /// not see them end (unlike `dropConnections`): it keeps their sessions, and whatever was
    /// announced on them, until `heal`.
    public func sever(_ ids: some Sequence<Int>) {
        severed.formUnion(ids.filter { connections[$0] != nil })
    }

    /// The network is back for the sessions `ids`: one its client gave up (a call failed on it, or it was
    /// closed) ends now, as the database learns that its peer is gone; one its client never used during
    /// the cut goes on (nothing was sent, so nothing broke), on both sides.
    public func heal(_ ids: some Sequence<Int>) {
        for id in ids where severed.remove(id) != nil {
            if let connection = connections[id], !connection.isOpen { endSession(connection) }
        }
    }

    /// The sessions still open on the database's side (a session cut off counts until healed).
    public var openSessions: [Int] { connections.keys.sorted() }

    /// The fault for a call of `operation` on connection `connection`, if one is due (consumed).
    func takeFault(_ operation: Operation, connection: Int) -> MemoryStoreFault? {
        if let index = faults.firstIndex(where: { $0.operation == operation || $0.operation == .any }) {
            let fault = faults[index]
            faultsMet += 1
            faults[index].remaining -= 1
            if faults[index].remaining <= 0 { faults.remove(at: index) }
            return fault
        }
        if let failure = faultHook?(operation, connection) {
            return MemoryStoreFault(operation: operation, failure: failure, sqlState: nil, remaining: 1, afterCommit: false)
        }
        return nil
    }
}
