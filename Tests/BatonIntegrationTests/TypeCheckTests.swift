import Baton
import BatonStore
import Foundation
import Testing

extension Integration {
    /// Procedure schemas travel with heartbeats into `baton.workers.schemas`, and `submit`
    /// checks graphs against them and the built-in ones.
    @Suite("type checking at submit", .serialized)
    @MainActor  // blocking waits here must not starve the cooperative pool the async unit tests need
    struct TypeCheckTests {
        static func runCount() throws -> Int { try TestCluster.sql().query("select count(*) as n from baton.runs").int(0, "n") ?? -1 }

        @Test("a worker's heartbeat stores its procedures' schemas; submit refuses a mistyped input with node, field, expected and found")
        func heartbeatSchemasAndSubmit() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            let demo = try cluster.start(["worker", "--demo", "--heartbeat", "0.5"], name: "demo")
            let sql = try TestCluster.sql()
            var stored = JSON.null
            var worker = ""
            var seenAt = ""
            try TestCluster.waitUntil(30, "a live worker row with schemas") {
                let r = try sql.query(
                    """
                    select id, last_seen_at::text as t, schemas::text as s from baton.workers where schemas is not null and pid = $1::int
                    """, [String(demo.processIdentifier)])
                guard r.rowCount == 1, let text = r[row: 0, column: "s"] else { return false }
                (worker, seenAt, stored) = (r[row: 0, column: "id"]!, r[row: 0, column: "t"]!, try JSONParser.parse(text))
                return true
            }
            #expect(stored["baton.add"] == ProcedureSchema(of: AddProcedure.self).json)
            #expect(stored["demo.count-words"]?["output"]?["properties"]?["total"] == ["type": "integer"])
            #expect(stored["baton.delay"] == nil)  // the coordinator runs it; workers do not publish it
            // Later heartbeats, most without schemas, keep the stored ones.
            try TestCluster.waitUntil(10, "two more heartbeats") {
                try sql.query(
                    "select last_seen_at > $2::timestamptz + interval '0.6 seconds' as later from baton.workers where id = $1", [worker, seenAt]
                )
                .bool(0, "later") == true
            }
            #expect(try sql.query("select schemas is not null as kept from baton.workers where id = $1", [worker]).bool(0, "kept") == true)

            let listed = try TestCluster.cli(["procedures", "--json"])
            #expect(listed.status == 0, "\(listed.stderr)")
            let add = try JSONParser.parse(listed.stdout).arrayValue?.first { $0["name"] == "baton.add" }
            #expect(add?["input"] == ProcedureSchema(of: AddProcedure.self).input.json)
            #expect(try TestCluster.cli(["procedures"]).stdout.contains("{text: string}"))

            let before = try Self.runCount()
            let bad: JSON = [
                "nodes": [
                    "sum": ["procedure": "baton.add", "input": ["values": "abc"]],
                    "top": ["procedure": "demo.top-words", "input": ["counts": ["$from": "count", "select": "/total"], "n": "3"]],
                    "count": ["procedure": "demo.count-words", "input": ["text": "a b a"]],
                ]
            ]
            let refused = try TestCluster.cli(["submit", try GraphFixtures.write(bad)])
            #expect(refused.status == 2)
            #expect(refused.stderr.contains(#"node 'sum', field 'input/values': expected array of number, found string "abc""#), "\(refused.stderr)")
            #expect(
                refused.stderr.contains("node 'top', field 'input/counts': expected object of integer, found integer (output of 'count' at '/total')")
            )
            #expect(refused.stderr.contains(#"node 'top', field 'input/n': expected integer, found string "3""#))
            #expect(try Self.runCount() == before)

            let good: JSON = [
                "nodes": [
                    "count": ["procedure": "demo.count-words", "input": ["text": "a b a"]],
                    "top": ["procedure": "demo.top-words", "input": ["counts": ["$from": "count", "select": "/counts"], "n": 1]],
                ]
            ]
            let id = try TestCluster.submit(good)
            let store = try TestCluster.store()
            defer { store.close() }
            #expect(try TestCluster.waitForRun(id, store: store) == "succeeded")
        }

        @Test("submit checks a procedure only live workers know, by the schema they published")
        func schemasOfAProcedureOnlyAWorkerKnows() throws {
            _ = TestCluster()
            let sql = try TestCluster.sql()
            let schemas: JSON = [
                "acme.resize": [
                    "input": ["type": "object", "properties": ["width": ["type": "integer"]], "required": ["width"]],
                    "output": ["type": "object", "properties": ["path": ["type": "string"]], "required": ["path"]],
                ]
            ]
            _ = try sql.execute(
                """
                insert into baton.workers (id, host, pid, pools, procedures, slots, started_at, last_seen_at, heartbeat_interval, schemas)
                values ('typecheck-fake', 'h', 1, '{default}', '{acme.resize}', 1, now(), now(), 60, $1::jsonb)
                """, [schemas.serialized()])
            defer { _ = try? sql.execute("delete from baton.workers where id = 'typecheck-fake'") }
            let before = try Self.runCount()
            let graph: JSON = [
                "nodes": [
                    "small": ["procedure": "acme.resize", "input": ["width": "wide"]],
                    "echo": ["procedure": "baton.sleep", "input": ["seconds": ["$from": "small", "select": "/path"]]],
                ]
            ]
            let refused = try TestCluster.cli(["submit", try GraphFixtures.write(graph), "--json"])
            #expect(refused.status == 2)
            #expect(refused.stderr.contains(#"node 'small', field 'input/width': expected integer, found string "wide""#), "\(refused.stderr)")
            #expect(refused.stderr.contains("node 'echo', field 'input/seconds': expected number, found string (output of 'small' at '/path')"))
            #expect(try JSONParser.parse(refused.stdout)["valid"] == false)
            #expect(try Self.runCount() == before)
            // Workers that disagree about a procedure's schema (two versions at once): it is not checked.
            let other: JSON = ["acme.resize": ["input": ["type": "object", "properties": ["width": ["type": "string"]]], "output": ["type": "any"]]]
            _ = try sql.execute(
                """
                insert into baton.workers (id, host, pid, pools, procedures, slots, started_at, last_seen_at, heartbeat_interval, schemas)
                values ('typecheck-fake-2', 'h', 2, '{default}', '{acme.resize}', 1, now(), now(), 60, $1::jsonb)
                """, [other.serialized()])
            defer { _ = try? sql.execute("delete from baton.workers where id = 'typecheck-fake-2'") }
            let mixed: JSON = [
                "nodes": [
                    "small": ["procedure": "acme.resize", "input": ["width": "wide"]],
                    "nap": ["procedure": "baton.sleep", "input": ["seconds": "x"]],
                ]
            ]
            let disputed = try TestCluster.cli(["submit", try GraphFixtures.write(mixed)])
            #expect(disputed.status == 2)
            #expect(disputed.stderr.contains("(1 problem)") && disputed.stderr.contains("node 'nap', field 'input/seconds'"), "\(disputed.stderr)")
            #expect(try Self.runCount() == before)
            // validate, with no database, does not know acme.resize's schema.
            let validated = try TestCluster.cli(["validate", "--allow-unknown-procedures", try GraphFixtures.write(graph)])
            #expect(validated.status == 0, "\(validated.stderr)")
            // --no-type-check lets a mistyped graph through validation.
            let unchecked = try TestCluster.cli(["validate", "--no-type-check", "--allow-unknown-procedures", try GraphFixtures.write(mixed)])
            #expect(unchecked.status == 0, "\(unchecked.stderr)")
            #expect(try TestCluster.cli(["validate", "--allow-unknown-procedures", try GraphFixtures.write(mixed)]).status == 2)
        }

        @Test("a heartbeat without schemas keeps the stored ones, also behind one that carried them in the same batch")
        func heartbeatsWithoutSchemasKeepThem() throws {
            _ = TestCluster()
            let store = try TestCluster.store()
            defer { store.close() }
            let id = "typecheck-batch-\(UUID().uuidString.prefix(6))"
            defer { _ = try? TestCluster.sql().execute("delete from baton.workers where id = $1", [id]) }
            let add = ProcedureSchema(of: AddProcedure.self)
            let first = WorkerHeartbeat(
                id: id, host: "h", pid: 1, pools: ["default"], procedures: ["baton.add"], slots: 1, startedAt: Date(), interval: 60,
                schemas: ["baton.add": add])
            let plain = first.carrying(schemas: nil)
            _ = try store.apply([], heartbeats: [first, plain])
            #expect(try store.liveWorkers().first { $0.id == id }?.schemas == ["baton.add": add])
            _ = try store.apply([], heartbeats: [plain])
            #expect(try store.liveWorkers().first { $0.id == id }?.schemas == ["baton.add": add])
        }
    }
}
