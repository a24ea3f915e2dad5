import Baton
import BatonPostgres
import BatonStore
import Foundation
import Testing

extension Integration {
    /// Bounded history: `baton prune` and the coordinator's `--retention` remove finished runs older
    /// than the cutoff with everything that belongs to them, and never a run still going.
    @Suite("retention", .serialized)
    @MainActor  // blocking waits here must not starve the cooperative pool the async unit tests need
    struct RetentionTests {
        /// Runs `count` runs of examples/cache.json to the end; returns their ids.
        static func finishedRuns(_ count: Int, environment: [String: String]) throws -> [String] {
            try (0..<count).map { _ in
                let run = try TestCluster.cli(
                    ["submit", try GraphFixtures.write(try GraphFixtures.example("cache.json")), "--wait", "--json"], environment: environment)
                try #require(run.status == 0, "\(run.stderr)")
                return try #require(try JSONParser.parse(run.stdout)["run_id"]?.stringValue)
            }
        }

        /// Moves runs `days` into the past, as if they had run then (their cache rows too).
        static func age(_ ids: [String], days: Int, sql: PGConnection) throws {
            let list = PGArray.literal(ids)
            // Into the time partitions of then (moving a run's submitted_at moves its rows there).
            try sql.execute(
                "select baton.ensure_history_partition(submitted_at - make_interval(days => $2::int)) from baton.runs where id = any($1::uuid[])",
                [list, String(days)])
            try sql.execute(
                """
                update baton.runs set submitted_at = submitted_at - make_interval(days => $2::int),
                    started_at = started_at - make_interval(days => $2::int), finished_at = finished_at - make_interval(days => $2::int)
                where id = any($1::uuid[])
                """, [list, String(days)])
            try sql.execute(
                "update baton.cache set succeeded_at = succeeded_at - make_interval(days => $2::int) where run_id = any($1::uuid[])",
                [list, String(days)])
        }

        static func count(_ table: String, runs ids: [String], sql: PGConnection) throws -> Int {
            try sql.query("select count(*) as n from baton.\(table) where run_id = any($1::uuid[])", [PGArray.literal(ids)]).int(0, "n") ?? -1
        }

        @Test("baton prune: a dry run counts, the prune removes old finished runs with their nodes, events and cache; running and recent runs stay")
        func pruneRemovesOldFinishedRuns() throws {
            let environment = try QuorumQueueTests.fresh("baton_retention_test")
            #expect(try TestCluster.cli(["migrate", "--partitions", "4"], environment: environment).status == 0)
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.start(["coordinator"], name: "coordinator", environment: environment)
            try cluster.start(["worker", "--concurrency", "4"], name: "worker", environment: environment)
            let old = try Self.finishedRuns(3, environment: environment)
            let recent = try Self.finishedRuns(1, environment: environment)
            // A run still going, however old: a durable timer of an hour.
            let waiting = try TestCluster.cli(
                [
                    "submit", try GraphFixtures.write(["name": "waits", "nodes": ["w": ["procedure": "baton.delay", "input": ["seconds": 3600]]]]),
                    "--json",
                ],
                environment: environment)
            let running = try #require(try JSONParser.parse(waiting.stdout)["run_id"]?.stringValue, "\(waiting.stderr)")
            let sql = try PGConnection(url: environment["BATON_DATABASE_URL"]!)
            defer { sql.close() }
            try Self.age(old + [running], days: 40, sql: sql)
            let nodesBefore = try Self.count("nodes", runs: old, sql: sql)
            let eventsBefore = try Self.count("events", runs: old, sql: sql)
            #expect(nodesBefore == 9 && eventsBefore > 9)

            let dry = try TestCluster.cli(
                ["prune", "--older-than", "30d", "--cache-older-than", "30d", "--dry-run", "--json"], environment: environment)
            #expect(dry.status == 0, "\(dry.stderr)")
            let counted = try JSONParser.parse(dry.stdout)
            #expect(
                counted["runs"] == 3 && counted["nodes"] == .int(Int64(nodesBefore)) && counted["events"] == .int(Int64(eventsBefore)),
                "\(dry.stdout)")
            #expect(counted["dry_run"] == true)
            #expect(try Self.count("nodes", runs: old, sql: sql) == nodesBefore, "a dry run removed something")

            let bad = try TestCluster.cli(["prune", "--older-than", "a month"], environment: environment)
            #expect(bad.status == 2)
            #expect(bad.stderr == "baton: --older-than: 'a month' is not a duration (use a number with s, m, h, d or w, such as 30d or 12h)\n")
            #expect(try Self.count("nodes", runs: old, sql: sql) == nodesBefore, "a refused prune removed something")

            let pruned = try TestCluster.cli(["prune", "--older-than", "30d", "--cache-older-than", "30d", "--json"], environment: environment)
            #expect(pruned.status == 0, "\(pruned.stderr)")
            let removed = try JSONParser.parse(pruned.stdout)
            #expect(removed["runs"] == 3 && removed["nodes"] == .int(Int64(nodesBefore)) && removed["events"] == .int(Int64(eventsBefore)))
            #expect(removed["cache_rows"] == 1, "\(pruned.stdout)")  // the first run's output, which the others took from the cache
            for table in ["runs", "nodes", "events", "edges", "holds", "cache"] {
                let column = table == "runs" ? "id" : "run_id"
                let left = try sql.query("select count(*) as n from baton.\(table) where \(column) = any($1::uuid[])", [PGArray.literal(old)])
                #expect(left.int(0, "n") == 0, "baton.\(table) keeps rows of pruned runs")
            }
            // The run still going and the recent run stay, whole.
            #expect(try Self.count("nodes", runs: [running], sql: sql) == 1)
            #expect(try Self.count("nodes", runs: recent, sql: sql) == 3)
            #expect(try TestCluster.cli(["show", recent[0]], environment: environment).status == 0)

            let again = try TestCluster.cli(["prune", "--older-than", "30d"], environment: environment)
            #expect(again.status == 0)
            #expect(again.stdout == "nothing to prune: no run finished more than 30d ago\n", "\(again.stdout)")
        }

        @Test("baton coordinator --retention removes old finished runs on its own")
        func coordinatorRetention() throws {
            let environment = try QuorumQueueTests.fresh("baton_retention_coordinator")
            #expect(try TestCluster.cli(["migrate", "--partitions", "4"], environment: environment).status == 0)
            let refused = try TestCluster.cli(["coordinator", "--retention", "30"], environment: environment)
            #expect(refused.status == 2)
            #expect(refused.stderr.contains("--retention: '30' is not a duration"), "\(refused.stderr)")

            let cluster = TestCluster()
            defer { cluster.stopAll() }
            let first = try cluster.start(["coordinator"], name: "coordinator", environment: environment)
            try cluster.start(["worker", "--concurrency", "4"], name: "worker", environment: environment)
            let old = try Self.finishedRuns(2, environment: environment)
            let recent = try Self.finishedRuns(1, environment: environment)
            let sql = try PGConnection(url: environment["BATON_DATABASE_URL"]!)
            defer { sql.close() }
            try Self.age(old, days: 10, sql: sql)
            first.terminate()
            first.waitUntilExit()
            try cluster.start(["coordinator", "--retention", "7d"], name: "coordinator-retention", environment: environment)
            try TestCluster.waitUntil(30, "the coordinator to prune the old runs") { try Self.count("nodes", runs: old, sql: sql) == 0 }
            #expect(try sql.query("select count(*) as n from baton.runs where id = any($1::uuid[])", [PGArray.literal(old)]).int(0, "n") == 0)
            #expect(try Self.count("nodes", runs: recent, sql: sql) == 3)
            #expect(cluster.log("coordinator-retention").contains("retention: removed 2 run(s)"), "\(cluster.log("coordinator-retention"))")
        }
    }
}
