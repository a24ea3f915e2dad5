import Baton
import BatonStore
import Foundation
import Testing

extension Integration {
    /// `baton cancel|retry --where`: the runs a filter matches get the requests the one-run commands
    /// insert, in batches, applied by a real coordinator; `--dry-run` and bad filters change nothing.
    @Suite("bulk cancel and retry", .serialized)
    @MainActor  // blocking waits here must not starve the cooperative pool the async unit tests need
    struct BulkRequestTests {
        static func requestCount(_ store: Store) throws -> Int {
            try TestCluster.sql().query("select count(*) as n from baton.requests").int(0, "n") ?? 0
        }

        static func statuses(_ store: Store, _ ids: [String]) throws -> [String] {
            try ids.map { try store.run($0)?.status.rawValue ?? "-" }
        }

        @Test("dry run, cancel and retry by name, procedure and error type; batches; the same through --server; bad filters store nothing")
        func bulkCancelAndRetry() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            try cluster.startWorker(concurrency: 8)
            try cluster.start(["--concurrency", "4"], name: "test-worker", executable: TestWorkerRestarter.executablePath)
            let store = try TestCluster.store()
            defer { store.close() }
            let tag = UUID().uuidString.prefix(8).lowercased()
            let sleep: JSON = ["nap": ["procedure": "baton.sleep", "input": ["seconds": 60]]]
            let a = try (0..<5).map { _ in try TestCluster.submit(["name": .string("bulk-a-\(tag)"), "nodes": sleep]) }
            let b = try (0..<2).map { _ in try TestCluster.submit(["name": .string("bulk-b-\(tag)"), "nodes": sleep]) }

            // Bad filters: one line, exit 2, nothing stored.
            let before = try Self.requestCount(store)
            for (arguments, line) in [
                (
                    ["cancel"],
                    "baton: give a run id, or --where FILTER to cancel every run it matches (status=, name=, since=, procedure=, error_type=, schedule=)\n"
                ),
                (
                    ["cancel", "--where", "colour=red"],
                    "baton: --where: unknown term 'colour' in 'colour=red' (known: status, name, since, procedure, error_type, schedule)\n"
                ),
                (
                    ["cancel", "--where", "name=bulk-*,since=soon"],
                    "baton: --where: since: 'soon' is not a duration (a number with s, m, h, d or w, such as 2h or 7d)\n"
                ),
                (
                    ["retry", "--where", "status=running"],
                    "baton: --where: status=running matches no run retry takes: it takes only failed or cancelled runs\n"
                ),
                (["cancel", a[0], "--where", "status=running"], "baton: give a run id or --where, not both\n"),
                (["retry", "--where", "status=failed", "--from", "nap"], "baton: --from names a node of one run; it does not go with --where\n"),
            ] {
                let result = try TestCluster.cli(arguments)
                #expect(result.status == 2 && result.stderr == line, "\(arguments): \(result)")
            }
            #expect(try Self.requestCount(store) == before)

            // A dry run lists and counts, and changes nothing.
            let dry = try TestCluster.cli(["cancel", "--where", "name=bulk-a-\(tag)", "--dry-run", "--json"])
            let preview = try JSONParser.parse(dry.stdout)
            #expect(dry.status == 0 && preview["matched"] == 5 && preview["runs"]?.arrayValue?.count == 5, "\(dry)")
            #expect(Set(preview["runs"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []) == Set(a))
            #expect(try Self.requestCount(store) == before)

            // The real thing: A's runs end cancelled, B's go on.
            let cancelled = try TestCluster.cli([
                "cancel", "--where", "name=bulk-a-\(tag)", "--where", "procedure=baton.sleep", "--reason", "bulk test",
            ])
            #expect(
                cancelled.status == 0
                    && cancelled.stdout
                        == "cancel requested for 5 run(s) matching name=bulk-a-\(tag),procedure=baton.sleep in 1 batch(es); all applied\n",
                "\(cancelled)")
            #expect(try Self.statuses(store, a) == Array(repeating: "cancelled", count: 5))
            #expect(try store.run(a[0])?.error == "cancelled: bulk test")
            #expect(try Self.statuses(store, b).allSatisfy { $0 == "pending" || $0 == "running" })

            // Through the server: the same dry run, then a retry in the API's batches.
            let port = try APITests.startServer(cluster)
            let token = try APITests.token("bulk-operate", "read,operate")
            let dryRetry = ["retry", "--where", "name=bulk-?-\(tag),status=cancelled", "--dry-run"]
            let direct = try TestCluster.cli(dryRetry)
            let remote = try CLIRemoteTests.remote(dryRetry, port: port, token: token)
            #expect(direct.status == 0 && direct.stdout.hasPrefix("would retry 5 run(s) matching "), "\(direct)")
            #expect(remote.status == direct.status && remote.stdout == direct.stdout && remote.stderr == direct.stderr, "\(remote)")
            let badRemote = try CLIRemoteTests.remote(["retry", "--where", "status=running"], port: port, token: token)
            #expect(badRemote.status == 2, "\(badRemote)")
            let retried = try CLIRemoteTests.remote(["retry", "--where", "name=bulk-a-\(tag)", "--json"], port: port, token: token)
            let retryAnswer = try JSONParser.parse(retried.stdout)
            #expect(retried.status == 0 && retryAnswer["matched"] == 5 && retryAnswer["applied"] == 5, "\(retried)")
            #expect(try Self.statuses(store, a).allSatisfy { $0 == "running" || $0 == "pending" })

            // Batches of their own: 7 runs, 3 a batch, each run asked once.
            let all = try RunFilter.parse(["name=bulk-*-\(tag)"]).get()
            let made = try store.bulkRequest(.cancel, all, reason: "cancelled: batches", batch: 3)
            #expect(made.requests.count == 7 && made.batches == 3)
            try TestCluster.waitUntil(30, "every run cancelled") { try Self.statuses(store, a + b).allSatisfy { $0 == "cancelled" } }
            #expect(try store.bulkPreview(.cancel, all).count == 0)

            // error_type and procedure name the same node: a run whose thrower failed with InventoryError.
            let thrower: JSON = ["procedure": "test.throw", "input": ["error": "out-of-stock", "sku": "A-1"]]
            let failing = try TestCluster.submit(["name": .string("bulk-t-\(tag)"), "nodes": ["t": thrower]])
            #expect(try TestCluster.waitForRun(failing, store: store) == "failed")
            func matched(_ terms: String) throws -> [String] {
                try store.bulkPreview(.retry, try RunFilter.parse([terms + ",since=1h"]).get()).runs.map(\.id)
            }
            #expect(try matched("error_type=InventoryError,procedure=test.throw") == [failing])
            #expect(try matched("error_type=InventoryError,procedure=baton.sleep").isEmpty)
            #expect(try matched("error_type=LookupError").isEmpty)
            #expect(try matched("name=bulk-*-\(tag),schedule=no-such-schedule").isEmpty)
            #expect(Set(try matched("name=bulk-*-\(tag)")) == Set(a + b + [failing]))
        }
    }
}
