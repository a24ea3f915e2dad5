import Baton
import BatonPostgres

extension Store {
    /// A node's stored output, or nil when it has none (or there is no such node): what the coordinator
    /// reads when a dependent needs an output it dropped from memory (its `--memory-budget`).
    public func nodeOutput(run runID: String, key: String) throws -> JSON? {
        let result = try connection.preparedQuery(
            "select output::text as output from baton.nodes where run_id = $1::uuid and key = $2", [runID, key])
        guard result.rowCount > 0, let text = result[row: 0, column: "output"] else { return nil }
        return try JSONParser.parse(text, maxDepth: 1024)
    }
}
