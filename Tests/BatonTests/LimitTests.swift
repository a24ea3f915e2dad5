import Baton
import BatonTesting
import Foundation
import Testing

@Suite("limits")
struct LimitTests {
    @Test func anInputTooLargeAfterInjectionFailsTheNodeBeforeDispatch() throws {
        var h = Harness(try graph(#"{"nodes": {"a": {"procedure": "p"}, "b": {"procedure": "p", "input": {"x": {"$from": "a"}}}}}"#))
        h.state.maxInputBytes = 30
        h.start()
        let text = String(repeating: "z", count: 40)
        let commands = h.succeed("a", .string(text))
        #expect(commands.dispatches.isEmpty)
        let size = JSON(["x": .string(text)]).serializedBytes().count
        #expect(h.state.nodes["b"]?.status == .failed)
        #expect(
            h.state.nodes["b"]?.error
                == "input is \(size) bytes after injection, more than the limit of 30 (BATON_MAX_INPUT_BYTES); "
                + "it injects the outputs of 1 node(s): 'a' (about 42 bytes)")
    }

    @Test func aNodeInjectingSeveralBigOutputsFailsAloneNamingThem() throws {
        let file = #"""
            {"nodes": {"a": {"procedure": "p"}, "b": {"procedure": "p"}, "small": {"procedure": "p"},
             "c": {"procedure": "p", "input": [{"$from": "a"}, {"$from": "b"}, {"$from": "a"}, {"$from": "small"}]},
             "d": {"procedure": "p", "input": {"$from": "a"}}}}
            """#
        var h = Harness(try graph(file))
        h.state.maxInputBytes = 1_000
        h.start()
        _ = h.succeed("a", .string(String(repeating: "a", count: 600)))
        _ = h.succeed("small", .string("s"))
        let commands = h.succeed("b", .string(String(repeating: "b", count: 500)))
        #expect(h.state.nodes["c"]?.status == .failed)
        let error = h.state.nodes["c"]?.error ?? ""
        let a = JSON.string(String(repeating: "a", count: 600))
        let size = JSON.array([a, .string(String(repeating: "b", count: 500)), a, .string("s")]).serializedBytes().count
        #expect(error.hasPrefix("input is \(size) bytes after injection, more than the limit of 1000 (BATON_MAX_INPUT_BYTES)"), "\(error)")
        #expect(error.hasSuffix("it injects the outputs of 3 node(s): 'a' (about 602 bytes), 'b' (about 502 bytes), 'small' (about 3 bytes)"))
        #expect(!commands.dispatches.contains { $0.key == "c" })
        #expect(h.state.nodes["d"]?.attempt == 1, "the node within the limit was dispatched")
    }

    @Test func anOutputTooLargeFailsTheAttemptPermanently() async {
        let task = TaskDispatch(
            runID: "r", key: "k", attempt: 1, procedure: "baton.echo", input: ["big": .string(String(repeating: "y", count: 100))],
            pool: "default", priority: 0)
        let result = await ProcedureRegistry.builtIn.attempt(task, worker: "w", logger: testLogger, maxOutputBytes: 50)
        let size = task.input.serializedBytes().count
        #expect(result.outcome == .failed(message: "output is \(size) bytes, more than the limit of 50 (BATON_MAX_OUTPUT_BYTES)", permanent: true))
        let fits = await ProcedureRegistry.builtIn.attempt(task, worker: "w", logger: testLogger, maxOutputBytes: size)
        #expect(fits.outcome == .succeeded(task.input))
    }
}
