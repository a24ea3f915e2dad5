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
        #expect(h.state.nodes["b"]?.error == "input is \(size) bytes after injection, more than the limit of 30 (BATON_MAX_INPUT_BYTES)")
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
