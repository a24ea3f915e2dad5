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
        do {
            if let plan = run[row: 0, column: "plan"] { return try Graph(plan: Array(plan.utf8)) }
            let source = try JSONParser.parse(run[row: 0, column: "graph"] ?? "", maxDepth: 1024)
            return try GraphDecoder(limits: GraphLimits(maxNodes: .max, maxGraphBytes: .max, maxDepth: 1024)).decode(source)
        } catch {
            throw StoreError("run \(id): the stored graph cannot be read: \(error)")
        }
    }
}
