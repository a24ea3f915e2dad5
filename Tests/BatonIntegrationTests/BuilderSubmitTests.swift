import Baton
import BatonPostgres
import BatonStore
import Foundation
import Testing

extension Integration {
    /// A graph built in Swift, submitted to PostgreSQL with `Store.submit` and run by a real cluster.
    @Suite("graphs built in Swift on real services", .serialized)
    @MainActor
    struct BuilderSubmitTests {
        @Test func submitsAndRuns() throws {
            var g = GraphBuilder(name: "typed-submit")
            let sum = g.add("sum", AddProcedure.self) { $0.set(\.values, literal: [1, 2, 3.5]) }
            let pause = g.delay("pause", for: .milliseconds(100), options: NodeOptions(after: [sum]))
            g.add("echo", EchoProcedure.self, input: sum.output, options: NodeOptions(retry: RetryPolicy(attempts: 2)))
            g.add("fired", EchoProcedure.self, input: pause.output(\.firedAt).json)

            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            try cluster.startWorker()
            let store = try TestCluster.store()
            defer { store.close() }
            try TestCluster.waitUntil(30, "a worker to announce baton.echo") {
                try store.liveWorkers().contains { $0.procedures.contains("baton.echo") }
            }
            let run = try store.submit(g)
            #expect(run.created)
            #expect(try TestCluster.waitForRun(run.id, store: store) == "succeeded")
            let nodes = try TestCluster.nodes(store, run.id)
            #expect(nodes["sum"]?.output == 6.5)
            #expect(nodes["echo"]?.output == 6.5)
            #expect(nodes["fired"]?.output == nodes["pause"]?.output?["fired_at"])
            // What is stored is the builder's document, as `baton show` prints it.
            let stored = try TestCluster.sql().query("select graph::text from baton.runs where id = $1::uuid", [run.id])
            #expect(try JSONParser.parse(stored[row: 0, column: "graph"]!) == g.json())
        }

        struct Numbers: Codable, Sendable { var values: [Int]; var scale: Int }

        @Test func storesTheRunInputMergedOverTheDeclaredDefaults() throws {
            var g = GraphBuilder(name: "typed-input")
            let numbers = g.declareInput(Numbers(values: [1, 2], scale: 10))
            g.add("sum", AddProcedure.self) { $0.set(\.values, numbers.value(\.values).unchecked(as: [JSON].self)) }
            let store = try TestCluster.store()
            defer { store.close() }
            _ = TestCluster.prepared
            let run = try store.submit(g, input: ["values": [3, 4]], allowUnknownProcedures: true)
            let row = try TestCluster.sql().query("select input::text, graph::text from baton.runs where id = $1::uuid", [run.id])
            #expect(try JSONParser.parse(row[row: 0, column: "input"]!) == ["values": [3, 4], "scale": 10])
            #expect(try JSONParser.parse(row[row: 0, column: "graph"]!)["nodes"]?["sum"]?["input"] == ["values": [3, 4]])
        }

        /// Inputs are checked against the schemas live workers published, as `baton submit` checks a file's.
        @Test func inputsThatDoNotFitALiveWorkersSchemasAreRefused() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()  // it records the workers' heartbeats
            // A procedure only this worker binary serves: its schema is known from its heartbeat alone.
            try cluster.start(["--concurrency", "1"], name: "test-worker", executable: TestWorkerRestarter.executablePath)
            let store = try TestCluster.store()
            defer { store.close() }
            try TestCluster.waitUntil(30, "a worker to publish test.stubborn-sleep's schema") {
                try store.liveWorkers().contains { $0.schemas["test.stubborn-sleep"] != nil }
            }
            var g = GraphBuilder(name: "typed-mismatch")
            g.add("nap", procedure: "test.stubborn-sleep", input: .literal(["seconds": "soon"]))
            let before = try store.runs(limit: 1000).count
            let error = #expect(throws: GraphValidationError.self) { try store.submit(g) }
            #expect(error?.problems.map(\.description) == [#"node 'nap', field 'input/seconds': expected number, found string "soon""#])
            #expect(try store.runs(limit: 1000).count == before)
            // Asked not to, it stores the run as it is (`baton submit --no-type-check`).
            // ... and the worker then fails the node, naming the field (the run ends: nothing is left for later tests).
            let stored = try store.submit(g, typeCheck: false)
            #expect(try TestCluster.waitForRun(stored.id, store: store, seconds: 30) == "failed")
            let failure = try store.run(stored.id)?.error ?? ""
            #expect(failure.contains("seconds"), "\(failure)")
        }

        @Test func anInvalidGraphIsRefusedWithNothingStored() throws {
            var g = GraphBuilder(name: "typed-refused")
            g.add("x", procedure: "acme.nobody-serves-this")
            let store = try TestCluster.store()
            defer { store.close() }
            _ = TestCluster.prepared
            let before = try store.runs(limit: 1000).count
            #expect(throws: GraphValidationError.self) { try store.submit(g) }
            #expect(try store.runs(limit: 1000).count == before)
        }
    }
}
