import Baton
import BatonStore
import Foundation
import Testing

extension Integration {
    /// Only one coordinator writes run state; another waits and takes over when it dies.
    @Suite("coordinator leadership", .serialized)
    @MainActor  // blocking waits here must not starve the cooperative pool the async unit tests need
    struct CoordinatorStandbyTests {
        @Test("a second coordinator stands by, and takes over within seconds of the leader's SIGKILL")
        func standbyTakesOver() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            let leader = try cluster.start(["coordinator"], name: "leader")
            let store = try TestCluster.store()
            defer { store.close() }
            // The leader holds the lock before the standby starts.
            try TestCluster.waitUntil(30, "the leader to take the lock") {
                // This database's lock only: coordinators of other databases on the server hold theirs.
                try TestCluster.sql().query(
                    """
                    select count(*) as n from pg_locks
                    where locktype = 'advisory' and objid = 727275 and granted
                      and database = (select oid from pg_database where datname = current_database())
                    """
                ).int(0, "n") == 1
            }
            try cluster.start(["coordinator"], name: "standby")
            try cluster.startWorker()
            try TestCluster.waitUntil(30, "the standby to stand by") { cluster.log("standby").contains("standing by") }

            let graph = try GraphFixtures.write(["name": "standby", "nodes": ["a": ["procedure": "baton.add", "input": ["values": [2, 3]]]]])
            let first = try TestCluster.cli(["submit", graph, "--wait"])
            #expect(first.status == 0, "\(first.stderr)")

            kill(leader.processIdentifier, SIGKILL)
            leader.waitUntilExit()
            let began = Date()
            let second = try TestCluster.cli(["submit", graph, "--wait", "--timeout", "30"])
            #expect(second.status == 0, "\(second.stderr)")
            #expect(Date().timeIntervalSince(began) < 10)
            #expect(cluster.log("standby").contains("taking over as the leading coordinator"))
        }
    }
}

extension Integration {
    @Suite("worker leases", .serialized)
    @MainActor  // blocking waits here must not starve the cooperative pool the async unit tests need
    struct LeaseTests {
        @Test("a frozen worker's node goes to another worker once its lease runs out")
        func frozenWorkerLosesItsLease() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.start(["coordinator", "--lease", "2"], name: "coordinator")
            let frozen = try cluster.start(["worker", "--demo", "--concurrency", "1", "--heartbeat", "0.3"], name: "frozen")
            let store = try TestCluster.store()
            defer { store.close() }
            let runID = try TestCluster.submit(["name": "lease", "nodes": ["nap": ["procedure": "baton.sleep", "input": ["seconds": 1.5]]]])
            try TestCluster.waitUntil(30, "the nap to be running") { try TestCluster.nodes(store, runID)["nap"]?.status == "running" }
            kill(frozen.processIdentifier, SIGSTOP)  // no heartbeats, no result, no timeout on the node
            defer { kill(frozen.processIdentifier, SIGCONT) }
            try cluster.start(["worker", "--demo", "--concurrency", "1", "--heartbeat", "0.3"], name: "healthy")

            #expect(try TestCluster.waitForRun(runID, store: store, seconds: 30) == "succeeded")
            let nap = try #require(try TestCluster.nodes(store, runID)["nap"])
            #expect(nap.attempts == 2)
            #expect(!(nap.worker ?? "").contains("-\(frozen.processIdentifier)-"))
            let kinds = try store.events(ofRun: runID).filter { $0.node == "nap" }.map(\.kind)
            #expect(kinds.contains("lease_expired"))
        }

        @Test("tasks waiting in a frozen worker for a slot go back to the queue and run elsewhere")
        func frozenWorkersWaitingTasksComeBack() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.start(["coordinator", "--lease", "2"], name: "coordinator")
            // One slot and room for three more tasks: all four are taken at once, three wait for the slot.
            let frozen = try cluster.start(
                ["worker", "--demo", "--concurrency", "1", "--prefetch", "4", "--heartbeat", "1"], name: "frozen")
            try TestCluster.waitUntil(30, "the worker to consume") { cluster.log("frozen").contains("prefetch 4") }
            let store = try TestCluster.store()
            defer { store.close() }
            let naps = (1...4).map { ("nap-\($0)", JSON(["procedure": "baton.sleep", "input": ["seconds": 1.5]])) }
            let runID = try TestCluster.submit(["name": "waiting", "nodes": .object(JSONObject(naps))])
            try TestCluster.waitUntil(30, "a node to be running") {
                try TestCluster.nodes(store, runID).values.contains { $0.status == "running" }
            }
            kill(frozen.processIdentifier, SIGSTOP)  // what it holds stays unacked until the broker drops it
            defer { kill(frozen.processIdentifier, SIGCONT) }
            try cluster.start(["worker", "--demo", "--concurrency", "1"], name: "healthy")

            // Without the broker dropping the frozen connection (heartbeat 1 s), they would be stuck.
            #expect(try TestCluster.waitForRun(runID, store: store, seconds: 30) == "succeeded")
            for (key, node) in try TestCluster.nodes(store, runID) {
                #expect(!(node.worker ?? "").contains("-\(frozen.processIdentifier)-"), "\(key) ran on the frozen worker")
            }
        }
    }
}
