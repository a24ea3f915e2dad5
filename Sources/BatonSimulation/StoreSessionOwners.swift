/// Which coordinator opened each store session, and which coordinators are cut off from the store
/// (`FaultKind.storeCut`): shared by the simulator and the coordinators' `makeStore`.
final class StoreSessionOwners: @unchecked Sendable {
    // Safe: the simulator is single-threaded.
    /// Session id -> the index of the coordinator that opened it.
    private(set) var owners: [Int: Int] = [:]
    /// Coordinators (by index) that cannot reach the store now.
    var cut: Set<Int> = []

    /// Opens a session of `store` for coordinator `index`, unless it is cut off (then a connection error, 08001).
    func connect(_ store: MemoryStore, coordinator index: Int) throws -> MemoryStoreConnection {
        if cut.contains(index) { throw MemoryStoreFault.error(.reconnect, sqlState: "08001") }
        let connection = try store.connect()
        owners = owners.filter { store.connections[$0.key] != nil }  // the ended ones go
        owners[connection.id] = index
        return connection
    }

    /// The open sessions (as the store sees them) of coordinator `index`.
    func sessions(of index: Int) -> [Int] { owners.filter { $0.value == index }.map(\.key).sorted() }
}
