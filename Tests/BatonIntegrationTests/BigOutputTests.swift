import Baton
import BatonStore
import Foundation
import Testing

extension Integration {
    /// Issue 31: a run of big outputs injected into many nodes must end, its oversized nodes failed
    /// alone with errors that name the limit, while another run of the same partition goes on.
    /// Scaled down: the coordinator's limits are lowered in its environment (output 1 MiB, input 4 MiB)
    /// and its statements split at 1 MiB, so the byte split is exercised without the real 1 GB.
    @Suite("big outputs on real services", .serialized)
    struct BigOutputTests {
        static let bigBytes = 600_000

        static func graph() -> JSON {
            var nodes: [(key: String, value: JSON)] = [
                ("big", ["procedure": "baton.echo", "input": .string(String(repeating: "x", count: bigBytes))]),
                // Within the coordinator's input limit, but its output is past the coordinator's output limit; the
                // worker (default limits) does not refuse it, the coordinator must.
                ("huge", ["procedure": "baton.echo", "input": .string(String(repeating: "y", count: 1_200_000))]),
                // Seven copies of big's output: 4.2 MB after injection, past the 4 MiB input limit.
                ("seven", ["procedure": "baton.echo", "input": .array(Array(repeating: ["$from": "big"], count: 7))]),
            ]
            for i in 0..<30 { nodes.append(("inject\(i)", ["procedure": "baton.echo", "input": ["copy": ["$from": "big"], "i": .int(Int64(i))]])) }
            return ["name": "big-outputs", "nodes": .object(JSONObject(nodes))]
        }

        @Test(.timeLimit(.minutes(2)))
        func aRunOfBigInjectedOutputsEndsWithItsOversizedNodesFailedAloneAndAnotherRunGoesOn() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.start(
                ["coordinator", "--commit-bytes", "1MiB", "--memory-budget", "16MiB"], name: "coordinator",
                environment: ["BATON_MAX_OUTPUT_BYTES": String(1 << 20), "BATON_MAX_INPUT_BYTES": String(4 << 20)])
            try cluster.startWorker(concurrency: 4)
            let store = try TestCluster.store()
            defer { store.close() }
            let partitions = try store.partitionCount()
            let big = try TestCluster.submit(Self.graph())
            // Another run of the same partition, submitted until one falls there (the partition is the run id's hash).
            let small = try GraphDecoder().decode(JSON(["name": "small", "nodes": ["a": ["procedure": "baton.echo", "input": "hello"]]]))
            var other = try store.submit(small).id
            while RunPartition.of(other, count: partitions) != RunPartition.of(big, count: partitions) {
                other = try store.submit(small).id
            }
            #expect(try TestCluster.waitForRun(other, store: store, seconds: 60) == "succeeded", "the other run of the partition goes on")
            #expect(try TestCluster.waitForRun(big, store: store, seconds: 90) == "failed")
            let nodes = try TestCluster.nodes(store, big)
            #expect(nodes["big"]?.status == "succeeded")
            for i in 0..<30 { #expect(nodes["inject\(i)"]?.status == "succeeded", "inject\(i): \(nodes["inject\(i)"]?.error ?? "")") }
            #expect(nodes["huge"]?.status == "failed")
            #expect(
                nodes["huge"]?.error
                    == "output is 1200002 bytes, more than the limit of 1048576 (BATON_MAX_OUTPUT_BYTES); refused by the coordinator")
            #expect(nodes["seven"]?.status == "failed")
            let seven = nodes["seven"]?.error ?? ""
            #expect(seven.contains("more than the limit of 4194304 (BATON_MAX_INPUT_BYTES)"), "\(seven)")
            #expect(seven.contains("it injects the outputs of 1 node(s): 'big'"), "\(seven)")
            // The outputs were recorded whole (each commit piece within its bytes, none lost).
            let sql = try TestCluster.sql()
            defer { sql.close() }
            let stored = try sql.query(
                "select count(*)::int as n from baton.nodes where run_id = $1::uuid and key like 'inject%' and length(output->>'copy') = $2::int",
                [big, String(Self.bigBytes)])
            #expect(stored.int(0, "n") == 30)
            #expect(!cluster.log("coordinator").contains("invalid message length"))
        }
    }
}
