import Baton
import BatonPostgres
import Foundation

extension Store {
    /// A run's graph as stored (from its plan, or its source for runs stored before plans), for
    /// reading only: drawing it, say. Nil if there is no such run; a stored graph that cannot be
    /// read throws a `StoreError` naming the run.
    public func runGraph(_ id: String) throws -> Graph? {
        let run = try connection.query(
            "select plan::text as plan, case when plan is null then graph::text end as graph from baton.runs where id = $1::uuid", [id])
        guard run.rowCount == 1 else { return nil }
        return try Self.storedGraph(run, of: id)
    }
}
