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

    /// The outputs of a run's own nodes (not the children groups, maps and spawns added), by key, for
    /// those that have one: what `baton submit --json --wait` and the API give once a run ended.
    public func outputs(ofRun runID: String) throws -> JSON {
        let r = try connection.query(
            """
            select key, output::text as output from baton.nodes
            where run_id = $1::uuid and output is not null and strpos(key, '/') = 0 order by position
            """, [runID])
        return .object(
            JSONObject(
                try (0..<r.rowCount).map {
                    (r[row: $0, column: "key"] ?? "", try JSONParser.parse(r[row: $0, column: "output"] ?? "null", maxDepth: 1024))
                }))
    }
}
