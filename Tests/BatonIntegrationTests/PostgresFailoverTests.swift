import Baton
import BatonPostgres
import BatonStore
import Foundation
import Testing

extension Integration {
    /// A PostgreSQL primary and a synchronous standby on 127.0.0.1 (deploy/local/pg-replica.sh): the
    /// primary is killed with -9 mid-run and the standby promoted.
    @Suite("PostgreSQL failover", .serialized)
    @MainActor  // blocking waits here must not starve the cooperative pool the async unit tests need
    struct PostgresFailoverTests {
        @Test("kill -9 of the primary mid-run, standby promoted: the run finishes on it, every result recorded before is there, none twice")
        func primaryKilledMidRun() throws {
            try ProjectScript.run("pg-replica.sh", ["up"])
            defer { _ = try? ProjectScript.run("pg-replica.sh", ["down"]) }
            let url = try ProjectScript.run("pg-replica.sh", ["url"])
            #expect(url.contains(",") && url.contains("target_session_attrs=read-write"), "\(url)")
            try ProjectScript.run("services.sh", ["vhost", "baton-failover", "--fresh"])
            let amqp = TestCluster.amqpURL
            let environment = [
                "BATON_DATABASE_URL": url, "BATON_AMQP_URL": "\(amqp[..<(amqp.lastIndex(of: "/") ?? amqp.endIndex)])/baton-failover",
            ]
            let migrated = try TestCluster.cli(["migrate", "--partitions", "4"], environment: environment)
            try #require(migrated.status == 0, "\(migrated.stderr)")

            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.start(["coordinator"], name: "coordinator", environment: environment)
            try cluster.start(["worker", "--concurrency", "8"], name: "worker", environment: environment)
            let file = try GraphFixtures.write(GraphFixtures.slowSum(name: "failover", count: 40, seconds: 2))
            let submitted = try TestCluster.cli(["submit", file, "--json"], environment: environment)
            let runID = try #require(try JSONParser.parse(submitted.stdout)["run_id"]?.stringValue, "\(submitted.stderr)")

            // What the primary has recorded just before it dies: the standby confirmed each of these commits.
            var before: Set<String> = []
            do {
                let primary = try Store(url: url)
                defer { primary.close() }
                try TestCluster.waitUntil(60, "some slow nodes to succeed") {
                    try primary.nodes(ofRun: runID).filter { $0.status == "succeeded" }.count >= 8
                }
                before = Set(try primary.nodes(ofRun: runID).filter { $0.status == "succeeded" }.map(\.key))
                try ProjectScript.run("pg-replica.sh", ["kill-primary"])
            }
            try ProjectScript.run("pg-replica.sh", ["promote"])
            let store = try Store(url: url)
            defer { store.close() }
            // Nothing the old primary acknowledged is missing on the new one.
            let recovered = Set(try store.nodes(ofRun: runID).filter { $0.status == "succeeded" }.map(\.key))
            #expect(before.isSubset(of: recovered), "lost: \(before.subtracting(recovered).sorted())")
            #expect(recovered.count < 41, "the run ended before the failover")

            #expect(try TestCluster.waitForRun(runID, store: store, seconds: 120) == "succeeded")
            let all = try store.nodes(ofRun: runID)
            #expect(all.count == 41)
            #expect(all.allSatisfy { $0.status == "succeeded" }, "\(all.filter { $0.status != "succeeded" }.map(\.key))")
            #expect(all.first { $0.key == "count" }?.output == 80)  // 40 nodes slept 2 s each
            let succeededEvents = try store.events(ofRun: runID).filter { $0.kind == "succeeded" }
            #expect(succeededEvents.count == 41, "\(succeededEvents.count) succeeded events")
            #expect(try store.queueType() == "classic")
        }
    }
}
