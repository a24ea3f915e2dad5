import Baton
import BatonPostgres
import BatonStore
import Foundation
import Testing

extension Integration {
    /// What the `baton` binary prints and stores for good input, where the format is a promise to scripts.
    @Suite("CLI output", .serialized)
    @MainActor  // blocking waits here must not starve the cooperative pool the async unit tests need
    struct CLITests {
        @Test func versionIsOneLineNamingTheProgram() throws {
            let result = try TestCluster.cli(["--version"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stdout.wholeMatch(of: /baton \d+\.\d+\.\d+\n/) != nil, "stdout: \(result.stdout)")
            #expect(result.stderr.isEmpty)
        }

        /// `baton migrate --partitions N` fixes the partition count of a new schema; a later migrate
        /// that asks for another is one line, exit 1, and changes nothing; a count out of range, exit 2.
        @Test func migrateFixesThePartitionCountOfANewSchema() throws {
            let name = "baton_partitions_\(UUID().uuidString.prefix(8).lowercased())"
            let admin = try TestCluster.sql()
            defer {
                _ = try? admin.execute("drop database if exists \(name) with (force)")
                admin.close()
            }
            try admin.execute("create database \(name)")
            guard let slash = TestCluster.databaseURL.lastIndex(of: "/") else { Issue.record("no database in the URL"); return }
            let url = TestCluster.databaseURL[..<slash] + "/" + name
            let environment = ["BATON_DATABASE_URL": String(url)]
            let first = try TestCluster.cli(["migrate", "--partitions", "8", "--json"], environment: environment)
            #expect(first.status == 0, "stderr: \(first.stderr)")
            #expect(try JSONParser.parse(first.stdout)["partitions"] == 8, "stdout: \(first.stdout)")
            let again = try TestCluster.cli(["migrate", "--json"], environment: environment)
            #expect(
                try JSONParser.parse(again.stdout) == [
                    "applied": [], "partitions": 8, "queue_type": "classic", "partition_by": "month", "broker": true,
                ],
                "stdout: \(again.stdout)")
            let other = try TestCluster.cli(["migrate", "--partitions", "16"], environment: environment)
            #expect(other.status == 1)
            #expect(
                other.stderr
                    == "baton: migration failed: the schema has 8 partitions, fixed when it was created; --partitions 16 cannot change them\n",
                "stderr: \(other.stderr)")
            let bad = try TestCluster.cli(["migrate", "--partitions", "0"], environment: environment)
            #expect(bad.status == 2 && bad.stderr.contains("--partitions must be from 1 to 1024, got 0"), "stderr: \(bad.stderr)")
            let sql = try PGConnection(url: String(url))
            defer { sql.close() }
            #expect(try sql.query("select count(*) as n from baton.partitions").int(0, "n") == 8)
        }

        /// fib spawns hundreds of nodes below its one: the total stays the graph's 1 while they are counted apart.
        @Test func submitWaitCountsSpawnedChildrenApartFromTheTotal() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            try cluster.startWorker()
            let result = try TestCluster.cli([
                "submit", GraphFixtures.examplesDirectory.appendingPathComponent("fib.json").path, "--wait", "--timeout", "120",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stderr.split(separator: "\n").filter { $0.hasPrefix("[") }
            #expect(!lines.isEmpty && lines.allSatisfy { $0.contains("/1 nodes done") }, "\(result.stderr)")
            let store = try TestCluster.store()
            defer { store.close() }
            let runID = String(result.stdout.firstMatch(of: /run ([0-9a-f-]{36}) succeeded/)?.1 ?? "")
            let children = try store.nodes(ofRun: runID).filter { $0.key.contains("/") }.count
            #expect(children > 1)
            #expect(lines.last?.hasSuffix("] 1/1 nodes done (+\(children) children, \(children) done)") == true, "\(result.stderr)")
            let known = lines.compactMap { $0.firstMatch(of: /\(\+(\d+) children/).map { Int($0.1)! } }
            #expect(known == known.sorted(), "children are only ever added: \(known)")
        }

        @Test(
            "submit --json on a bad graph file prints what validate --json prints",
            arguments: [
                #"{"nodes": {"a": {"procedure": "baton.echo", "priority": 12, "after": ["b"]}, "b": {"procedure": "baton.echo", "after": ["a"]}}}"#,
                #"{"nodes": {"a": {"procedure": "baton.echo""#,
                "",  // no file at all
            ])
        func submitJSONOnABadGraph(_ text: String) throws {
            _ = TestCluster()
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(UUID().uuidString.prefix(8)).json").path
            if !text.isEmpty { try Data(text.utf8).write(to: URL(fileURLWithPath: path)) }
            let sql = try PGConnection(url: TestCluster.databaseURL)  // a connection of its own: the store's is the store's
            defer { sql.close() }
            let before = try sql.query("select count(*) as n from baton.runs").int(0, "n")

            let validate = try TestCluster.cli(["validate", path, "--json"])
            let submit = try TestCluster.cli(["submit", path, "--json"])
            #expect(validate.status == 2)
            #expect(try JSONParser.parse(validate.stdout)["valid"] == false)
            #expect(submit.stdout == validate.stdout)
            #expect(submit.status == 2)
            #expect(submit.stderr.hasPrefix("baton: \(path): "), "stderr: \(submit.stderr)")
            #expect(try sql.query("select count(*) as n from baton.runs").int(0, "n") == before)
        }

        @Test func anIdempotencyKeyReturnsItsRunForTheSameGraphAndRefusesAnother() throws {
            _ = TestCluster()  // no coordinator: the run stays pending
            let key = "key-\(UUID().uuidString.prefix(8))"
            let graph = try GraphFixtures.write(["name": "same", "nodes": ["a": ["procedure": "baton.echo", "input": ["x": 1]]]])
            let store = try TestCluster.store()
            defer { store.close() }
            let sql = try PGConnection(url: TestCluster.databaseURL)
            defer { sql.close() }

            let first = try TestCluster.cli(["submit", graph, "--idempotency-key", key, "--json"])
            #expect(first.status == 0, "stderr: \(first.stderr)")
            let created = try JSONParser.parse(first.stdout)
            let id = try #require(created["run_id"]?.stringValue)
            #expect(created["existing"] == false)

            // The same graph again: the same run, said so on stderr; stdout stays the id alone, for scripts.
            let again = try TestCluster.cli(["submit", graph, "--idempotency-key", key])
            #expect(again.status == 0, "stderr: \(again.stderr)")
            #expect(again.stdout == id + "\n")
            #expect(again.stderr.hasSuffix("\(id) (existing run for key \(key), status pending)\n"), "stderr: \(again.stderr)")
            let againJSON = try JSONParser.parse(try TestCluster.cli(["submit", graph, "--idempotency-key", key, "--json"]).stdout)
            #expect(againJSON["run_id"] == .string(id) && againJSON["status"] == "pending" && againJSON["existing"] == true)

            // With --wait it does not claim to have submitted anything.
            let waiting = try TestCluster.cli(["submit", graph, "--idempotency-key", key, "--wait", "--timeout", "0.3"])
            #expect(waiting.status == 3)
            #expect(waiting.stderr.contains("run \(id) already exists (key \(key)); waiting\n"), "stderr: \(waiting.stderr)")
            #expect(!waiting.stderr.contains("submitted"))

            // Another graph under the same key is refused, naming the key and the run that has it.
            let runs = try sql.query("select count(*) as n from baton.runs").int(0, "n")
            let other = try GraphFixtures.write(["name": "same", "nodes": ["a": ["procedure": "baton.echo", "input": ["x": 2]]]])
            let refused = try TestCluster.cli(["submit", other, "--idempotency-key", key, "--json"])
            #expect(refused.status == 2)
            #expect(refused.stdout.isEmpty)
            #expect(
                refused.stderr == "baton: --idempotency-key '\(key)' already belongs to run \(id), which has a different graph or input; "
                    + "submit that graph and input to get the run, or use another key\n")
            #expect(try sql.query("select count(*) as n from baton.runs").int(0, "n") == runs)
            #expect(try store.run(id)?.name == "same")
        }

        @Test func aRunWithoutAKeyIsNotExisting() throws {
            _ = TestCluster()
            let graph = try GraphFixtures.write(["nodes": ["a": ["procedure": "baton.echo"]]])
            let result = try TestCluster.cli(["submit", graph, "--json"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let json = try JSONParser.parse(result.stdout)
            #expect(json["existing"] == false)
            #expect(json["status"] == "pending")
            // Statuses read back as they were written.
            let id = try #require(json["run_id"]?.stringValue)
            let runs = try JSONParser.parse(try TestCluster.cli(["runs", "--status", "pending", "--json", "--limit", "10000"]).stdout)
            #expect(runs.arrayValue?.contains { $0["id"]?.stringValue == id && $0["status"] == "pending" } == true)
        }
    }
}
