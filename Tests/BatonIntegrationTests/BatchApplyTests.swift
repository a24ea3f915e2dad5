import Baton
import BatonPostgres
import BatonStore
import Foundation
import Testing

extension Integration {
    /// `Store.apply` sends a few rows as one JSON document and many as text arrays; both must store the same.
    @Suite("batch rows on real PostgreSQL", .serialized)
    struct BatchApplyTests {
        static let nodeCount = 40

        /// Submits a run of `nodeCount` nodes, applies each node's queued and result changes in batches of
        /// `perBatch` nodes, and returns the stored nodes and events (without ids and times of the database).
        func storedAfterApplying(perBatch: Int) throws -> (nodes: [String], events: [String]) {
            var nodes: [(key: String, value: JSON)] = []
            for i in 0..<Self.nodeCount { nodes.append(("n\(i)", ["procedure": "baton.echo", "input": ["i": .int(Int64(i))]])) }
            let graph = try GraphDecoder().decode(JSON(["name": "apply", "nodes": .object(JSONObject(nodes))]))
            let store = try TestCluster.store()
            defer { store.close() }
            let sql = try TestCluster.sql()
            let run = try store.submit(graph)
            defer { _ = try? sql.execute("delete from baton.runs where id = $1::uuid", [run.id]) }
            let at = Date(timeIntervalSince1970: 1_800_000_000)
            for start in stride(from: 0, to: Self.nodeCount, by: perBatch) {
                var commands: [SchedulerCommand] = []
                for i in start..<min(start + perBatch, Self.nodeCount) {
                    let input: JSON = ["i": .int(Int64(i)), "text": "quote \" backslash \\ comma, brace {} é", "none": .null]
                    commands.append(.node(NodeChange(key: "n\(i)", status: .queued, attempt: 1, input: input)))
                    var done = NodeChange(
                        key: "n\(i)", status: i % 3 == 0 ? .failed : .succeeded, attempt: 1,
                        output: i % 3 == 0 ? nil : (i % 2 == 0 ? ["n": .int(Int64(i))] : .string("s\(i)")), worker: "w-\(i % 2)",
                        startedAt: at, finishedAt: at.addingTimeInterval(Double(i)))
                    if i % 3 == 0 { done.error = "boom \(i), \"quoted\"" }
                    commands.append(.node(done))
                }
                _ = try store.apply([(run.id, commands)])
            }
            let rows = try sql.query(
                """
                select key || '|' || status || '|' || attempts || '|' || coalesce(input::text, '-') || '|' || coalesce(output::text, '-')
                    || '|' || coalesce(error, '-') || '|' || coalesce(worker, '-') || '|' || coalesce(started_at::text, '-')
                    || '|' || coalesce(finished_at::text, '-') as row
                from baton.nodes where run_id = $1::uuid order by position
                """, [run.id])
            let events = try sql.query(
                """
                select coalesce(node_key, '-') || '|' || kind || '|' || detail::text as row
                from baton.events where run_id = $1::uuid and kind <> 'submitted' order by id
                """, [run.id])
            return ((0..<rows.rowCount).map { rows[row: $0, column: "row"]! }, (0..<events.rowCount).map { events[row: $0, column: "row"]! })
        }

        @Test func manyRowsAsTextArraysStoreWhatFewRowsAsJSONStore() throws {
            let few = try storedAfterApplying(perBatch: 2)  // JSON documents
            let many = try storedAfterApplying(perBatch: Self.nodeCount)  // 40 rows: text arrays
            #expect(few.nodes.count == Self.nodeCount)
            #expect(few.events.count == 2 * Self.nodeCount)
            #expect(few.nodes.contains { $0.contains("boom 3, \"quoted\"") })
            #expect(many.nodes == few.nodes)
            #expect(many.events == few.events)
        }
    }
}

extension Integration.BatchApplyTests {
    /// A map's or spawn's fragment that cannot be encoded fails the batch, naming the run and node;
    /// nothing of the batch is stored (a null fragment would make the children vanish on the next load).
    @Test func aFragmentThatCannotBeEncodedFailsLoudly() throws {
        let graph = try GraphDecoder().decode(JSON(["name": "fragment", "nodes": ["a": ["procedure": "baton.echo"]]]))
        let store = try TestCluster.store()
        defer { store.close() }
        let sql = try TestCluster.sql()
        defer { sql.close() }
        let run = try store.submit(graph)
        defer { _ = try? sql.execute("delete from baton.runs where id = $1::uuid", [run.id]) }
        let fragment = GroupSpec(order: [], nodes: [:], output: .literal(.double(.nan)))
        let error = #expect(throws: StoreError.self) {
            _ = try store.apply([
                (
                    run.id,
                    [.node(NodeChange(key: "a", status: .running, attempt: 1, worker: "w")), .expand(parent: "a", fragment: fragment, position: 1)]
                )
            ])
        }
        #expect(error?.message.contains("run \(run.id): the children of node 'a' cannot be stored") == true, "\(String(describing: error))")
        let status = try sql.query("select status, fragment::text as f from baton.nodes where run_id = $1::uuid and key = 'a'", [run.id])
        #expect(status[row: 0, column: "status"] == "pending")
        #expect(status[row: 0, column: "f"] == nil)
    }
}
