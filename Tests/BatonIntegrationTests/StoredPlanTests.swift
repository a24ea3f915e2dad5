import Baton
import BatonPostgres
import BatonStore
import Foundation
import Testing

extension Integration {
    /// The plan `Store.submit` writes (`runs.plan`, text since migration 8) is what `Store.loadRun` reads back.
    @Suite("stored plans on real PostgreSQL", .serialized)
    struct StoredPlanStoreTests {
        static let graph = #"""
            {"name": "stored-plan", "nodes": {
              "a": {"procedure": "baton.echo", "input": {"x": [1, 2.5, "é\"\n"]}, "retry": {"attempts": 3, "wait": {"constant": "2s"}},
                    "timeout": "5s", "priority": 3, "mutex": ["db"]},
              "b": {"procedure": "baton.echo", "input": {"y": {"$from": "a", "select": "/x/1"}}, "when": {"$from": "a", "select": "/x/0"}},
              "g": {"group": {"nodes": {"c": {"procedure": "baton.echo", "input": {"$from": "b"}}}}, "after": ["a"]},
              "m": {"map": {"over": {"$from": "a", "select": "/x"}, "procedure": "baton.echo", "input": {"i": {"$index": true}}}}}}
            """#

        @Test func aSubmittedPlanLoadsBackAsTheGraph() throws {
            let graph = try GraphDecoder().decode(Array(Self.graph.utf8))
            let store = try TestCluster.store()
            defer { store.close() }
            let sql = try TestCluster.sql()
            let run = try store.submit(graph)
            defer { _ = try? sql.execute("delete from baton.runs where id = $1::uuid", [run.id]) }
            let stored = try sql.query("select pg_typeof(plan)::text as type, plan from baton.runs where id = $1::uuid", [run.id])
            #expect(stored[row: 0, column: "type"] == "text")
            #expect(stored[row: 0, column: "plan"] == String(decoding: graph.planBytes(), as: UTF8.self))
            let loaded = try #require(try store.loadRun(run.id))
            #expect(loaded.graph.order == graph.order)
            #expect(loaded.graph.nodes == graph.nodes)
        }

        @Test func aVersionOnePlanStoredByAnEarlierBuildStillLoads() throws {
            let store = try TestCluster.store()
            defer { store.close() }
            let sql = try TestCluster.sql()
            let run = try store.submit(try GraphDecoder().decode(Array(#"{"nodes": {"a": {"procedure": "baton.echo", "input": {"x": 1}}}}"#.utf8)))
            defer { _ = try? sql.execute("delete from baton.runs where id = $1::uuid", [run.id]) }
            let v1 =
                #"{"v": 1, "name": "old", "order": ["a"], "nodes": {"a": {"key": "a", "procedure": "baton.echo", "input": {"literal": {"_0": {"x": 7}}}, "after": [], "pool": "default", "priority": 0, "policies": {"dependencies": "all-succeeded", "onFailure": "fail"}, "dependencies": []}}}"#
            _ = try sql.execute("update baton.runs set plan = $2 where id = $1::uuid", [run.id, v1])
            let loaded = try #require(try store.loadRun(run.id))
            #expect(loaded.graph.nodes["a"]?.input == .literal(["x": 7]))
        }
    }
}
