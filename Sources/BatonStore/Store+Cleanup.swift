import BatonPostgres

extension Store {
    /// Deletes the runs whose name starts with `prefix`, with their nodes, edges and events (for
    /// benchmark and test set-ups: a coordinator would schedule unfinished ones again). Returns how many.
    @discardableResult
    public func deleteRuns(namePrefix prefix: String) throws -> Int {
        try connection.execute("delete from baton.runs where starts_with(name, $1)", [prefix])
    }

    /// Forgets every registered worker (for benchmark set-ups: live ones register again at their next heartbeat).
    public func deleteWorkers() throws {
        _ = try connection.execute("delete from baton.workers")
    }
}
