import Baton
import BatonPostgres
import Foundation
import Testing

@testable import BatonStore

extension Integration {
    /// Upgrading a database from before time partitions (schema 14): `baton migrate` moves every row
    /// into monthly partitions and keeps what it meant.
    @Suite("upgrading to time partitions", .serialized)
    @MainActor
    struct PartitionUpgradeTests {
        static let graph =
            #"{"name": "legacy", "nodes": {"a": {"procedure": "baton.add", "input": {"values": [1, 2]}}, "b": {"procedure": "baton.add", "input": {"values": [{"$from": "a"}, 10]}}, "c": {"procedure": "baton.echo", "input": {}, "after": ["b"]}}}"#

        /// Every row of the history tables, without the partition key and the columns later migrations add (`runs.traceparent`, 19; `nodes.attempt_token`, 20), in a stable order.
        static func snapshot(_ sql: PGConnection) throws -> [String] {
            try [
                ("runs", "id"), ("nodes", "run_id, key"), ("edges", "run_id, from_key, to_key"), ("events", "id"),
            ].map { table, order in
                try sql.query(
                    "select coalesce(string_agg((to_jsonb(t) - 'run_submitted_at' - 'traceparent' - 'attempt_token' - 'version')::text, E'\\n' order by \(order)), '') as rows from baton.\(table) t"
                )[row: 0, column: "rows"] ?? ""
            }
        }

        /// The partition suffix of the month `daysAgo` days ago.
        static func month(daysAgo: Int, _ sql: PGConnection) throws -> String {
            try sql.query(
                #"select to_char((now() - make_interval(days => $1::int)) at time zone 'UTC', '"y"YYYY"m"MM') as s"#, [String(daysAgo)]
            )[row: 0, column: "s"]!
        }

        @Test("baton migrate moves runs of three months into monthly partitions unchanged; keys, submits and prune work after")
        func historyMovesIntoPartitions() throws {
            let url = try TestCluster.freshDatabase(named: "baton_partition_upgrade")
            let environment = ["BATON_DATABASE_URL": url]
            let old = try Store(url: url)
            defer { old.close() }
            #expect(try old.migrate(partitions: 4, through: 14) == Array(1...14))
            let sql = try PGConnection(url: url)
            defer { sql.close() }
            let graph = try GraphDecoder().decode(Array(Self.graph.utf8))
            let recent = try (0..<3).map { _ in try LegacySubmit.insert(graph, daysAgo: 0, sql: sql) }
            let keyed = try LegacySubmit.insert(graph, daysAgo: 35, idempotencyKey: "legacy-key", sql: sql)
            let lastMonth = [keyed, try LegacySubmit.insert(graph, daysAgo: 35, sql: sql)]
            let older = try (0..<2).map { _ in try LegacySubmit.insert(graph, daysAgo: 70, sql: sql) }
            // The old ones finished a minute after they started, but for one still going 70 days on.
            try sql.execute(
                """
                update baton.runs set status = 'succeeded', started_at = submitted_at, finished_at = submitted_at + interval '1 minute'
                where id = any($1::uuid[])
                """, [PGArray.literal(lastMonth + [older[0]])])
            try sql.execute("update baton.runs set status = 'running', started_at = submitted_at where id = $1::uuid", [older[1]])
            let before = try Self.snapshot(sql)

            let migrated = try TestCluster.cli(["migrate", "--json"], environment: environment)
            #expect(migrated.status == 0, "\(migrated.stderr)")
            #expect(try JSONParser.parse(migrated.stdout)["applied"] == [15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27], "\(migrated.stdout)")
            #expect(try Self.snapshot(sql) == before)
            #expect(try sql.query("select count(*) as n from baton.nodes").int(0, "n") == 21)
            #expect(try sql.query("select relkind from pg_class where oid = 'baton.nodes'::regclass")[row: 0, column: "relkind"] == "p")

            // Each run's rows sit in its month's partitions.
            for (ids, daysAgo) in [(recent, 0), (lastMonth, 35), (older, 70)] {
                let suffix = try Self.month(daysAgo: daysAgo, sql)
                for table in ["runs", "nodes", "edges", "events"] {
                    let column = table == "runs" ? "id" : "run_id"
                    let homes = try sql.query(
                        "select distinct tableoid::regclass::text as home from baton.\(table) where \(column) = any($1::uuid[])",
                        [PGArray.literal(ids)]
                    ).rows.map { $0[0] ?? "" }
                    #expect(homes == ["baton.\(table)_\(suffix)"], "\(table) of runs from \(daysAgo) days ago: \(homes)")
                }
            }

            // The idempotency key still names its run, and refuses another graph.
            let store = try Store(url: url)
            defer { store.close() }
            let again = try store.submit(graph, idempotencyKey: "legacy-key")
            #expect(again.id == keyed && !again.created)
            let other = try GraphDecoder().decode(Array(#"{"name": "other", "nodes": {"x": {"procedure": "baton.echo", "input": {}}}}"#.utf8))
            #expect(throws: IdempotencyKeyConflict.self) { try store.submit(other, idempotencyKey: "legacy-key") }
            let fresh = try store.submit(other, idempotencyKey: "new-key")
            #expect(try store.submit(other, idempotencyKey: "new-key").id == fresh.id)
            #expect(
                try sql.query("select tableoid::regclass::text as home from baton.runs where id = $1::uuid", [fresh.id])[row: 0, column: "home"]
                    == "baton.runs_\(try Self.month(daysAgo: 0, sql))")

            // Last month's partition goes whole; the older one keeps its running run and loses the finished one by row.
            let pruned = try TestCluster.cli(["prune", "--older-than", "30d", "--json"], environment: environment)
            #expect(pruned.status == 0, "\(pruned.stderr)")
            let report = try JSONParser.parse(pruned.stdout)
            let lastSuffix = try Self.month(daysAgo: 35, sql)
            #expect(report["partitions"] == [.string(lastSuffix)], "\(pruned.stdout)")
            #expect(report["runs"] == 3 && report["nodes"] == 9, "\(pruned.stdout)")
            #expect(try sql.query("select to_regclass($1) is null as gone", ["baton.nodes_\(lastSuffix)"]).bool(0, "gone") == true)
            #expect(try sql.query("select count(*) as n from baton.idempotency_keys where key = 'legacy-key'").int(0, "n") == 0)
            let left = try sql.query("select id::text from baton.runs where id = any($1::uuid[])", [PGArray.literal(older + lastMonth)])
            #expect(left.rows.map { $0[0] } == [older[1]])
        }

        @Test(
            "migrate --partition-by day partitions a new history by day, ahead; a submit that finds no partition creates it; a bad unit is one line")
        func dailyPartitions() throws {
            let url = try TestCluster.freshDatabase(named: "baton_partition_daily")
            let environment = ["BATON_DATABASE_URL": url]
            let bad = try TestCluster.cli(["migrate", "--partition-by", "week"], environment: environment)
            #expect(bad.status == 2 && bad.stderr.contains("--partition-by: unknown unit 'week' (use month or day)"), "\(bad.stderr)")
            let sql = try PGConnection(url: url)
            defer { sql.close() }
            #expect(try sql.query("select to_regclass('baton.runs') is null as none").bool(0, "none") == true)  // nothing stored

            let migrated = try TestCluster.cli(["migrate", "--partitions", "4", "--partition-by", "day", "--json"], environment: environment)
            #expect(migrated.status == 0, "\(migrated.stderr)")
            #expect(try JSONParser.parse(migrated.stdout)["partition_by"] == "day", "\(migrated.stdout)")
            let spans = try sql.query("select extract(epoch from to_at - from_at)::int as s from baton.history_partitions order by from_at")
            #expect(spans.rows.map { $0[0] } == ["86400", "86400", "86400"])

            // As if no coordinator had run since: today's partition is missing.
            let today = try sql.query(
                #"select suffix from baton.history_partitions where from_at <= now() and now() < to_at"#)[row: 0, column: "suffix"]!
            #expect(today.count == "y2026m11d26".count, "\(today)")
            for table in ["events", "edges", "nodes"] { try sql.execute("drop table baton.\(table)_\(today)") }
            try sql.execute("alter table baton.runs detach partition baton.runs_\(today)")
            try sql.execute("drop table baton.runs_\(today)")
            try sql.execute("delete from baton.history_partitions where suffix = $1", [today])
            let graph = try GraphFixtures.write(try GraphFixtures.example("cache.json"))
            let submitted = try TestCluster.cli(["submit", graph, "--json"], environment: environment)
            #expect(submitted.status == 0, "\(submitted.stderr)")
            let id = try #require(try JSONParser.parse(submitted.stdout)["run_id"]?.stringValue)
            #expect(
                try sql.query("select tableoid::regclass::text as home from baton.runs where id = $1::uuid", [id])[row: 0, column: "home"]
                    == "baton.runs_\(today)")
        }

        @Test("a coordinator creates the partitions of the periods ahead that are missing")
        func coordinatorCreatesPartitionsAhead() throws {
            let url = try TestCluster.freshDatabase(named: "baton_partition_ahead")
            let environment = ["BATON_DATABASE_URL": url]
            #expect(try TestCluster.cli(["migrate", "--partitions", "4"], environment: environment).status == 0)
            let sql = try PGConnection(url: url)
            defer { sql.close() }
            // The two periods after this one go, as if the last coordinator ran two months ago.
            let ahead = try sql.query("select suffix from baton.history_partitions where from_at > now() order by from_at").rows.map { $0[0]! }
            #expect(ahead.count == 2)
            for suffix in ahead {
                for table in ["events", "edges", "nodes"] { try sql.execute("drop table baton.\(table)_\(suffix)") }
                try sql.execute("alter table baton.runs detach partition baton.runs_\(suffix)")
                try sql.execute("drop table baton.runs_\(suffix)")
                try sql.execute("delete from baton.history_partitions where suffix = $1", [suffix])
            }
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.start(["coordinator"], name: "coordinator", environment: environment)
            try TestCluster.waitUntil(30, "the coordinator creates the two partitions ahead") {
                try sql.query("select suffix from baton.history_partitions where from_at > now() order by from_at").rows.map { $0[0]! } == ahead
            }
            for suffix in ahead {
                #expect(try sql.query("select to_regclass($1) is not null as made", ["baton.events_\(suffix)"]).bool(0, "made") == true)
            }
        }
    }
}
