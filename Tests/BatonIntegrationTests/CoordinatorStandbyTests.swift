import Baton
import BatonStore
import Foundation
import Testing

extension Integration {
    /// Several coordinators at once: each owns a share of the partitions, a new one gets its share
    /// within seconds, a stopping one hands its partitions over, and a killed one's are taken.
    @Suite("several coordinators", .serialized)
    @MainActor  // blocking waits here must not starve the cooperative pool the async unit tests need
    struct CoordinatorStandbyTests {
        /// How many partitions each live coordinator holds, by id.
        static func owners() throws -> [String: Int] {
            let r = try TestCluster.sql().query(
                "select owner, count(*)::int as n from baton.partitions where owner is not null and lease_until > now() group by owner")
            var owners: [String: Int] = [:]
            for i in 0..<r.rowCount { owners[r[row: i, column: "owner"]!] = r.int(i, "n") }
            return owners
        }

        static func ids(of process: Process) throws -> String? {
            try owners().keys.first { $0.contains("-\(process.processIdentifier)-") }
        }

        @Test("a second coordinator takes its share within seconds; a stopping one hands over; a killed one's partitions are taken")
        func partitionsMove() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            let first = try cluster.start(["coordinator"], name: "first")
            try cluster.startWorker()
            try TestCluster.waitUntil(30, "the first coordinator to own every partition") { try Self.owners().values.sorted() == [64] }
            let began = Date()
            let second = try cluster.start(["coordinator"], name: "second")
            try TestCluster.waitUntil(30, "the two to share the partitions") { try Self.owners().values.sorted() == [32, 32] }
            #expect(Date().timeIntervalSince(began) < 10, "a starting coordinator gets its share within a few seconds")

            // Runs spread over both coordinators' partitions; each is driven by its partition's owner.
            let graph = try GraphFixtures.write(["name": "shared", "nodes": ["a": ["procedure": "baton.add", "input": ["values": [2, 3]]]]])
            let store = try TestCluster.store()
            defer { store.close() }
            var runIDs: [String] = []
            for _ in 0..<8 {
                runIDs.append(try TestCluster.submit(["name": "shared", "nodes": ["a": ["procedure": "baton.add", "input": ["values": [2, 3]]]]]))
            }
            for id in runIDs { #expect(try TestCluster.waitForRun(id, store: store, seconds: 30) == "succeeded") }
            let listed = try TestCluster.cli(["coordinators", "--json"])
            #expect(listed.status == 0, "\(listed.stderr)")
            let rows = try JSONDecoder().decode([CoordinatorRow].self, from: Data(listed.stdout.utf8))
            #expect(rows.map(\.partitions.count).sorted() == [32, 32], "\(listed.stdout)")

            // A clean stop hands the partitions over at once, well before their lease would run out.
            second.terminate()
            second.waitUntilExit()
            try TestCluster.waitUntil(8, "the first to take the second's partitions") { try Self.owners().values.sorted() == [64] }
            #expect(cluster.log("second").contains("handed over partitions"))

            // A killed one's session ends: its partitions are taken without waiting for the lease.
            let third = try cluster.start(["coordinator"], name: "third")
            try TestCluster.waitUntil(30, "the first and the third to share") { try Self.owners().values.sorted() == [32, 32] }
            let survivor = try #require(try Self.ids(of: third))
            kill(first.processIdentifier, SIGKILL)
            first.waitUntilExit()
            let killed = Date()
            let after = try TestCluster.cli(["submit", graph, "--wait", "--timeout", "30"])
            #expect(after.status == 0, "\(after.stderr)")
            try TestCluster.waitUntil(30, "the third to own every partition") { try Self.owners() == [survivor: 64] }
            #expect(Date().timeIntervalSince(killed) < 8, "a killed coordinator's partitions are taken within seconds")
        }

        @Test("baton coordinators with none running says so, and lists nothing as JSON")
        func noCoordinators() throws {
            let text = try TestCluster.cli(["coordinators"])
            #expect(text.status == 0, "\(text.stderr)")
            #expect(text.stdout.hasPrefix("no coordinator is running"), "\(text.stdout)")
            let json = try TestCluster.cli(["coordinators", "--json"])
            #expect(json.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[]", "\(json.stdout)")
        }

        /// Every partition's epoch, by partition.
        static func epochs() throws -> [Int: Int] {
            let r = try TestCluster.sql().query("select partition, epoch::int as epoch from baton.partitions")
            var epochs: [Int: Int] = [:]
            for i in 0..<r.rowCount { epochs[r.int(i, "partition")!] = r.int(i, "epoch") }
            return epochs
        }

        @Test("coordinators whose clocks are hours apart share the partitions calmly, and a stalled one's are taken after the lease")
        func clocksFarOff() throws {
            // Debian's faketime runs the coordinator as its child with a shifted wall clock (its
            // monotonic clock left alone). It does not pass signals on, so the test signals the child.
            let faketime = "/usr/bin/faketime"
            try #require(
                FileManager.default.isExecutableFile(atPath: faketime),
                "faketime is not installed: run deploy/local/test.sh (it installs Debian's faketime) or apt-get install faketime")
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            var children: [pid_t] = []
            defer {
                for pid in children {
                    kill(pid, SIGCONT)
                    kill(pid, SIGTERM)
                }
                let deadline = Date().addingTimeInterval(10)
                while children.contains(where: { kill($0, 0) == 0 }) && Date() < deadline { usleep(50_000) }
                for pid in children { kill(pid, SIGKILL) }
            }
            func shifted(_ offset: String, name: String) throws -> pid_t {
                let wrapper = try cluster.start(
                    ["-f", offset, TestCluster.batonPath, "coordinator", "--partition-lease", "2"], name: name,
                    environment: ["FAKETIME_DONT_FAKE_MONOTONIC": "1"], executable: faketime)
                var child: pid_t?
                try TestCluster.waitUntil(10, "faketime to start the coordinator") {
                    let list = try? String(
                        contentsOfFile: "/proc/\(wrapper.processIdentifier)/task/\(wrapper.processIdentifier)/children", encoding: .utf8)
                    child = list?.split(separator: " ").first.flatMap { pid_t($0) }
                    return child != nil
                }
                children.append(child!)
                return child!
            }
            // One on time, one three hours ahead, one three hours behind (only their wall clocks).
            let onTime = try cluster.start(["coordinator", "--partition-lease", "2"], name: "on-time")
            let ahead = try shifted("+3h", name: "ahead")
            let behind = try shifted("-3h", name: "behind")
            try cluster.startWorker()
            try TestCluster.waitUntil(30, "the three to share the partitions") { try Self.owners().values.sorted() == [21, 21, 22] }
            // Their own clocks really are off: each log line is stamped with its process's wall clock.
            for (name, offset) in [("ahead", 3.0 * 3600), ("behind", -3.0 * 3600)] {
                let stamp = try #require(cluster.log(name).split(separator: " ").first.map(String.init), "\(name) logged nothing")
                let logged = try #require(ISO8601DateFormatter().date(from: stamp), "\(stamp)")
                #expect(abs(logged.timeIntervalSinceNow - offset) < 300, "\(name) logged at \(stamp)")
            }

            // Runs over every coordinator's partitions finish, and no partition changes owner meanwhile
            // (a lease taken on a host's clock would look run out, or everlasting, to the others).
            let settled = try Self.epochs()
            let store = try TestCluster.store()
            defer { store.close() }
            let runs = try (0..<9).map { _ in
                try TestCluster.submit(["name": "skew", "nodes": ["nap": ["procedure": "baton.sleep", "input": ["seconds": 2.5]]]])
            }
            for id in runs { #expect(try TestCluster.waitForRun(id, store: store, seconds: 30) == "succeeded") }
            #expect(try Self.epochs() == settled, "no partition changed owner while the runs went on")

            // The one ahead stalls: its partitions are free when their lease runs out on the database's clock.
            let stalled = try #require(try Self.owners().keys.first { $0.contains("-\(ahead)-") })
            kill(ahead, SIGSTOP)
            let stopped = Date()
            try TestCluster.waitUntil(20, "the others to take the stalled one's partitions") {
                try Self.owners()[stalled] == nil && Self.owners().values.reduce(0, +) == 64
            }
            #expect(Date().timeIntervalSince(stopped) < 8, "taken within the 2 s lease and a balance round or two")
            // Runs of its partitions go on at once: the stalled one's consuming connection, which held
            // its share of their reports, is dropped by RabbitMQ after about a lease of silence.
            let taken = try (0..<16).map { _ in
                try TestCluster.submit(["name": "skew", "nodes": ["a": ["procedure": "baton.add", "input": ["values": [1, 2]]]]])
            }
            for id in taken { #expect(try TestCluster.waitForRun(id, store: store, seconds: 20) == "succeeded") }

            // Woken, it finds them gone (its renewal, its fenced commit, or its consuming connection, which
            // RabbitMQ dropped after about a lease of silence), writes nothing for them, and takes its share again.
            kill(ahead, SIGCONT)
            try TestCluster.waitUntil(30, "the three to share again") { try Self.owners().values.sorted() == [21, 21, 22] }
            let after = try TestCluster.submit(["name": "skew", "nodes": ["a": ["procedure": "baton.add", "input": ["values": [3, 4]]]]])
            #expect(try TestCluster.waitForRun(after, store: store, seconds: 30) == "succeeded")
            #expect(onTime.isRunning && kill(ahead, 0) == 0 && kill(behind, 0) == 0)
        }

        @Test("a coordinator started with another partition count than the schema's stops at start-up with one line")
        func partitionCountMismatch() throws {
            let result = try TestCluster.cli(["coordinator", "--partitions", "7"])
            #expect(result.status != 0)
            #expect(result.stderr.contains("the schema has 64 partitions, this coordinator was started with --partitions 7"), "\(result.stderr)")
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
            try cluster.start(["coordinator", "--lease", "1"], name: "coordinator")
            let frozen = try cluster.start(["worker", "--demo", "--concurrency", "1", "--heartbeat", "0.3"], name: "frozen")
            let store = try TestCluster.store()
            defer { store.close() }
            let runID = try TestCluster.submit(["name": "lease", "nodes": ["nap": ["procedure": "baton.sleep", "input": ["seconds": 1.5]]]])
            try TestCluster.waitUntil(30, "the nap to be running") { try TestCluster.nodes(store, runID)["nap"]?.status == "running" }
            // No heartbeats, no result, no timeout on the node: the 1 s lease runs out before RabbitMQ
            // drops the frozen connection (two missed AMQP heartbeats of 1 s) and redelivers.
            kill(frozen.processIdentifier, SIGSTOP)
            defer { kill(frozen.processIdentifier, SIGCONT) }
            try cluster.start(["worker", "--demo", "--concurrency", "1", "--heartbeat", "0.3"], name: "healthy")

            #expect(try TestCluster.waitForRun(runID, store: store, seconds: 30) == "succeeded")
            let nap = try #require(try TestCluster.nodes(store, runID)["nap"])
            #expect(nap.attempts == 2)
            #expect(!(nap.worker ?? "").contains("-\(frozen.processIdentifier)-"))
            let kinds = try store.events(ofRun: runID).filter { $0.node == "nap" }.map(\.kind)
            #expect(kinds.contains("lease_expired"))
        }

        @Test("a coordinator stalled longer than the worker lease takes nothing from a worker that kept heartbeating")
        func stalledCoordinatorKeepsLiveWorkers() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            let coordinator = try cluster.start(["coordinator", "--lease", "2"], name: "coordinator")
            try cluster.start(["worker", "--demo", "--concurrency", "1", "--heartbeat", "0.3"], name: "worker")
            let store = try TestCluster.store()
            defer { store.close() }
            let runID = try TestCluster.submit(["name": "stall", "nodes": ["nap": ["procedure": "baton.sleep", "input": ["seconds": 6]]]])
            try TestCluster.waitUntil(30, "the nap to be running") { try TestCluster.nodes(store, runID)["nap"]?.status == "running" }
            // The fault itself: the coordinator stops for twice the lease (a long GC-like stall) while
            // the worker goes on heartbeating into the coordinator's queue. (A stop lands most often in
            // a receive, whose first heartbeat then renews the lease; a stall elsewhere is the deaf
            // spell of CoordinatorDecisionTests and the simulator's paused coordinators and clock jumps.)
            kill(coordinator.processIdentifier, SIGSTOP)
            usleep(4_000_000)
            kill(coordinator.processIdentifier, SIGCONT)

            #expect(try TestCluster.waitForRun(runID, store: store, seconds: 30) == "succeeded")
            #expect(try TestCluster.nodes(store, runID)["nap"]?.attempts == 1)
            #expect(try !store.events(ofRun: runID).contains { $0.kind == "lease_expired" })
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
