import Baton
import BatonPostgres
import BatonStore
import Foundation
import Testing

extension Integration {
    /// Signal nodes on real services: `baton signal` and `Store.signal` deliver durably, the coordinator
    /// applies them, and every refusal is one line with exit 2 and nothing stored.
    @Suite("signals on real services", .serialized)
    @MainActor  // blocking waits here must not starve the cooperative pool the async unit tests need
    struct SignalIntegrationTests {
        static let approval = "wait-for-approval.json"

        /// How many signal requests the run has (refusals store none).
        func signalRequests(_ runID: String) throws -> Int {
            let sql = try TestCluster.sql()
            defer { sql.close() }
            return try sql.query("select count(*)::int as n from baton.requests where run_id = $1::uuid and kind = 'signal'", [runID]).int(0, "n")
                ?? -1
        }

        func events(_ runID: String, _ key: String) throws -> [String] {
            let sql = try TestCluster.sql()
            defer { sql.close() }
            let r = try sql.query("select kind from baton.events where run_id = $1::uuid and node_key = $2 order by id", [runID, key])
            return (0..<r.rowCount).map { r[row: $0, column: "kind"]! }
        }

        @Test("baton signal delivers a value; the node downstream gets it")
        func signalDelivers() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            try cluster.startWorker()
            let runID = try TestCluster.submit(try GraphFixtures.example(Self.approval))
            let store = try TestCluster.store()
            defer { store.close() }
            try TestCluster.waitUntil(30, "approve to wait for its signal") { try TestCluster.nodes(store, runID)["approve"]?.status == "waiting" }
            #expect(try TestCluster.nodes(store, runID)["publish"]?.status == "pending")
            let sent = try TestCluster.cli(["signal", String(runID.prefix(8)), "approve", "--data", #"{"by": "ada"}"#])
            #expect(sent.status == 0, "\(sent.stderr)")
            #expect(sent.stdout == "run \(runID) node approve: signal delivered; the node succeeded\n")
            #expect(try TestCluster.waitForRun(runID, store: store, seconds: 30) == "succeeded")
            let nodes = try TestCluster.nodes(store, runID)
            #expect(nodes["approve"]?.output == ["by": "ada"])
            #expect(nodes["publish"]?.output == ["title": "release 1.2", "approved_by": "ada"])
            #expect(try events(runID, "approve") == ["awaiting_signal", "succeeded"])
            // The run ended: a signal now is refused.
            let late = try TestCluster.cli(["signal", runID, "approve"])
            #expect(late.status == 2)
            #expect(late.stderr == "baton: cannot signal: run \(runID) already ended (succeeded); it takes no signal\n")
            #expect(try signalRequests(runID) == 1)
        }

        @Test("a signal sent before the node waits is kept, survives until a coordinator runs, and is consumed; a second is refused")
        func earlySignalIsKept() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            // No coordinator yet: the run is pending, and so is the node.
            let runID = try TestCluster.submit(try GraphFixtures.example(Self.approval))
            let store = try TestCluster.store()
            defer { store.close() }
            try store.signal(run: runID, node: "approve", value: ["by": "grace"])
            let second = try TestCluster.cli(["signal", runID, "approve", "--data", #"{"by": "eve"}"#, "--timeout", "0"])
            #expect(second.status == 2)
            #expect(second.stderr.hasPrefix("baton: cannot signal: node 'approve' already has a signal"))
            #expect(second.stderr.hasSuffix("a second one is refused\n"))
            #expect(try signalRequests(runID) == 1)
            try cluster.startCoordinator()
            try cluster.startWorker()
            #expect(try TestCluster.waitForRun(runID, store: store, seconds: 30) == "succeeded")
            let nodes = try TestCluster.nodes(store, runID)
            #expect(nodes["approve"]?.output == ["by": "grace"])
            #expect(nodes["publish"]?.output == ["title": "release 1.2", "approved_by": "grace"])
            #expect(try events(runID, "approve") == ["signal_kept", "succeeded"])
        }

        @Test("a signal node that waits past its timeout fails with a clear error, and its dependents are cancelled")
        func timeoutFails() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            let runID = try TestCluster.submit([
                "name": "signal-timeout",
                "nodes": [
                    "approve": ["signal": "approval", "timeout": "1s"],
                    "publish": ["procedure": "baton.echo", "input": ["$from": "approve"]],
                ],
            ])
            let store = try TestCluster.store()
            defer { store.close() }
            #expect(try TestCluster.waitForRun(runID, store: store, seconds: 30) == "failed")
            let nodes = try TestCluster.nodes(store, runID)
            #expect(nodes["approve"]?.status == "failed")
            #expect(nodes["approve"]?.error == "timed out: no signal 'approval' within 1s")
            #expect(nodes["publish"]?.status == "cancelled")
            #expect(try events(runID, "approve") == ["awaiting_signal", "timed_out"])
            let late = try TestCluster.cli(["signal", runID, "approve"])
            #expect(late.status == 2)
            #expect(try signalRequests(runID) == 0)
        }

        @Test("each refusal is one line, exit 2, and stores nothing")
        func refusals() throws {
            // No coordinator: the run stays pending, so only the refusal under test applies.
            let runID = try TestCluster.submit([
                "name": "signal-refusals",
                "nodes": [
                    "approve": ["signal": "approval"],
                    "echo": ["procedure": "baton.echo", "input": ["x": 1]],
                ],
            ])
            let cases: [(arguments: [String], environment: [String: String], message: String)] = [
                (["signal", runID, "ghost"], [:], "baton: cannot signal: run \(runID) has no node 'ghost'"),
                (["signal", runID, "aprove"], [:], "baton: cannot signal: run \(runID) has no node 'aprove' (did you mean 'approve'?)"),
                (
                    ["signal", runID, "echo"], [:],
                    "baton: cannot signal: node 'echo' is not a signal node (it runs baton.echo); only a node of kind signal takes a signal"
                ),
                (["signal", "00000000-0000-4000-8000-00000000dead", "approve"], [:], "baton: no run with id 00000000-0000-4000-8000-00000000dead"),
                (["signal", "zz", "approve"], [:], "baton: 'zz' is not a run id (a UUID, or at least 4 of its first characters)"),
                (
                    ["signal", runID, "approve", "--data", #""a long value""#], ["BATON_MAX_OUTPUT_BYTES": "10"],
                    "baton: cannot signal: the signal's value is 14 bytes, more than the output limit of 10 (BATON_MAX_OUTPUT_BYTES)"
                ),
                (["signal", runID, "approve", "--data", "{oops"], [:], "baton: --data: "),
                (["signal", runID, "approve", "--data", "@/nonexistent/value.json"], [:], "baton: --data @"),
            ]
            for c in cases {
                let result = try TestCluster.cli(c.arguments, environment: c.environment)
                #expect(result.status == 2, "\(c.arguments): \(result.stderr)")
                #expect(result.stderr.hasPrefix(c.message), "\(c.arguments)")
                #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)")
            }
            #expect(try signalRequests(runID) == 0)
            // A run in process cannot be sent a signal: refused before it starts.
            let local = try TestCluster.cli(["run", GraphFixtures.examplesDirectory.appendingPathComponent(Self.approval).path, "--local"])
            #expect(local.status == 2)
            #expect(
                local.stderr
                    == "baton: node 'approve' waits for a signal, which a run in this process cannot be sent; submit the graph to a cluster and send it with `baton signal`\n"
            )
            // Store.signal refuses the same, as a SignalRefusal.
            let store = try TestCluster.store()
            defer { store.close() }
            #expect(throws: SignalRefusal("node 'echo' is not a signal node (it runs baton.echo); only a node of kind signal takes a signal")) {
                try store.signal(run: runID, node: "echo")
            }
            #expect(try signalRequests(runID) == 0)
            // A value of data omitted is null; cancelling the run then refuses further signals.
            let stored = try TestCluster.cli(["signal", runID, "approve", "--timeout", "0", "--json"])
            #expect(stored.status == 0, "\(stored.stderr)")
            let sql = try TestCluster.sql()
            defer { sql.close() }
            #expect(
                try sql.query("select value::text as v from baton.requests where run_id = $1::uuid and kind = 'signal'", [runID])[
                    row: 0, column: "v"] == "null")
        }
    }
}
