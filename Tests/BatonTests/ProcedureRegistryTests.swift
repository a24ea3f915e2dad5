import Baton
import BatonDemo
import Foundation
import Testing

@Suite("ProcedureRegistry and built-in procedures")
struct ProcedureRegistryTests {
    @Test func echoReturnsItsInput() async throws {
        let input = try JSONParser.parse(#"{"z": [1, 2.5, "x", null], "a": {"b": true}}"#)
        let result = await runAttempt("baton.echo", input)
        #expect(result.outcome == .succeeded(input))
        guard case let .succeeded(output) = result.outcome else { return }
        #expect(output.objectValue?.keys == ["z", "a"])
        #expect(await runAttempt("baton.echo", "just a string").outcome == .succeeded("just a string"))
    }

    @Test(
        "baton.add",
        arguments: [
            ("[1, 2, 3]", "int", 6.0), ("[]", "int", 0.0), ("[1.5, 2.25]", "double", 3.75),
            ("[-1, 0.5]", "double", -0.5), ("[2.5, 2.5]", "int", 5.0), ("[-4, -6]", "int", -10.0),
        ])
    func add(values: String, kind: String, sum: Double) async throws {
        let result = await runAttempt("baton.add", ["values": try JSONParser.parse(values)])
        guard case let .succeeded(output) = result.outcome else {
            Issue.record("failed: \(result.outcome)")
            return
        }
        #expect(representation(output) == kind)
        #expect(output.numberValue == sum)
    }

    @Test func sleepZeroSeconds() async {
        #expect(await runAttempt("baton.sleep", ["seconds": 0]).outcome == .succeeded(["slept": 0]))
        #expect(await runAttempt("baton.sleep", ["seconds": 0.0]).outcome == .succeeded(["slept": 0.0]))
    }

    @Test func sleepRefusesNegativeSeconds() async {
        #expect(
            await runAttempt("baton.sleep", ["seconds": -1]).outcome
                == .failed(message: "seconds must be a number from 0 to 31622400, got -1.0", permanent: true))
    }

    @Test func sleepEndsEarlyWhenCancelled() async {
        let task = Task { await runAttempt("baton.sleep", ["seconds": 3600]) }
        task.cancel()
        let result = await task.value
        #expect(result.outcome == .failed(message: "cancelled while running", permanent: false))
    }

    @Test(
        "baton.fail",
        arguments: [
            (#"{"message": "nope"}"#, 1, NodeResult.Outcome.failed(message: "nope", permanent: false)),
            (#"{"message": "nope", "permanent": true}"#, 1, .failed(message: "nope", permanent: true)),
            (#"{"message": "nope", "permanent": false}"#, 5, .failed(message: "nope", permanent: false)),
            (#"{"message": "later", "succeed_on_attempt": 3}"#, 2, .failed(message: "later", permanent: false)),
            (#"{"message": "later", "succeed_on_attempt": 3}"#, 3, .succeeded(["attempt": 3])),
            (#"{"message": "later", "succeed_on_attempt": 3}"#, 4, .succeeded(["attempt": 4])),
            (#"{"message": "now", "succeed_on_attempt": 1, "permanent": true}"#, 1, .succeeded(["attempt": 1])),
        ])
    func fail(input: String, attempt: Int, expected: NodeResult.Outcome) async throws {
        let result = await runAttempt("baton.fail", try JSONParser.parse(input), attempt: attempt)
        #expect(result.outcome == expected)
        #expect(result.attempt == attempt)
    }

    @Test(
        "input that does not fit fails permanently, naming the field",
        arguments: [
            ("baton.add", #"{}"#, "input does not fit baton.add: '/values': required field is missing"),
            ("baton.add", #"{"values": "x"}"#, "input does not fit baton.add: '/values': expected an array"),
            ("baton.add", #"{"values": [1, "two"]}"#, "input does not fit baton.add: '/values[1]': expected a number"),
            ("baton.add", #"{"values": null}"#, "input does not fit baton.add: '/values': expected an array, found null"),
            ("baton.sleep", #"{"seconds": "1"}"#, "input does not fit baton.sleep: '/seconds': expected a number"),
            ("baton.fail", #"{"permanent": true}"#, "input does not fit baton.fail: '/message': required field is missing"),
            (
                "baton.fail", #"{"message": "m", "succeed_on_attempt": "2"}"#,
                "input does not fit baton.fail: '/succeed_on_attempt': expected an integer"
            ),
            ("baton.fail", #"{"message": "m", "permanent": "yes"}"#, "input does not fit baton.fail: '/permanent': expected a boolean"),
        ])
    func inputMismatch(procedure: String, input: String, message: String) async throws {
        let result = await runAttempt(procedure, try JSONParser.parse(input))
        #expect(result.outcome == .failed(message: message, permanent: true))
    }

    @Test func inputOfTheWrongKindNamesTheInput() async throws {
        let result = await runAttempt("baton.add", [1, 2])
        guard case let .failed(message, permanent) = result.outcome else { Issue.record("succeeded"); return }
        #expect(permanent)
        #expect(message.hasPrefix("input does not fit baton.add: the input: "))
    }

    @Test func unknownProcedureFailsWithoutBeingPermanent() async {
        let result = await runAttempt("demo.nope", [:])
        #expect(result.outcome == .failed(message: "this worker does not serve procedure 'demo.nope'", permanent: false))
    }

    @Test func resultDescribesTheAttempt() async throws {
        let before = Date()
        let result = await runAttempt("baton.echo", 1, attempt: 4)
        #expect(result.key == "node-t")
        #expect(result.attempt == 4)
        #expect(result.worker == "test-worker")
        let started = try #require(result.startedAt)
        let finished = try #require(result.finishedAt)
        #expect(started >= before)
        #expect(finished >= started)
    }

    struct Boom: Error {}

    struct ThrowingProcedure: Procedure {
        static let name = "custom.throw"
        func execute(_ input: JSON, context: ProcedureContext) async throws -> JSON { throw Boom() }
    }

    struct ContextProcedure: Procedure {
        static let name = "custom.context"
        struct Output: Codable, Sendable { let run: String; let node: String; let attempt: Int }
        func execute(_ input: JSON, context: ProcedureContext) async throws -> Output {
            context.reportProgress(-1, "below")
            context.reportProgress(0.5, nil)
            context.reportProgress(7, "above")
            return Output(run: context.runID, node: context.nodeKey, attempt: context.attempt)
        }
    }

    @Test func otherErrorsAreRetryableFailuresNamingTheProcedure() async {
        var registry = ProcedureRegistry()
        registry.register(ThrowingProcedure())
        let result = await runAttempt("custom.throw", nil, registry: registry)
        guard case let .failed(message, permanent) = result.outcome else { Issue.record("succeeded"); return }
        #expect(!permanent)
        #expect(message.hasPrefix("custom.throw threw "))
        #expect(message.contains("Boom"))
    }

    @Test func contextAndProgress() async {
        var registry = ProcedureRegistry()
        registry.register(ContextProcedure())
        let seen = Collected<String>()
        let result = await runAttempt("custom.context", nil, attempt: 2, registry: registry) { fraction, message in
            seen.append("\(fraction) \(message ?? "-")")
        }
        #expect(result.outcome == .succeeded(["run": "run-t", "node": "node-t", "attempt": 2]))
        #expect(seen.all == ["0.0 below", "0.5 -", "1.0 above"])
    }

    @Test func names() {
        #expect(ProcedureRegistry().names.isEmpty)
        #expect(ProcedureRegistry.builtIn.names == ["baton.add", "baton.echo", "baton.fail", "baton.sleep"])
        let demo = ProcedureRegistry.demo
        for name in [
            "baton.add", "baton.echo", "baton.fail", "baton.sleep", "demo.chunk-text", "demo.count-words",
            "demo.merge-counts", "demo.top-words", "demo.format", "demo.multiply", "demo.divide",
            "demo.countdown", "demo.steps", "demo.slow-add", "demo.fib",
        ] {
            #expect(demo.contains(name), "\(name)")
        }
        #expect(demo.names.count == 15)
        #expect(demo.names == demo.names.sorted())
        #expect(!demo.contains("baton.delay"))
        // Nothing a graph author can name harms the worker that runs it.
        #expect(!demo.names.contains { $0.contains("crash") })

        var custom = ProcedureRegistry.builtIn
        custom.register(ThrowingProcedure())
        #expect(custom.names == ["baton.add", "baton.echo", "baton.fail", "baton.sleep", "custom.throw"])
    }

    struct ReplacementEcho: Procedure {
        static let name = "baton.echo"
        func execute(_ input: JSON, context: ProcedureContext) async throws -> JSON { "replaced" }
    }

    @Test func registeringAgainReplaces() async {
        var registry = ProcedureRegistry.builtIn
        registry.register(ReplacementEcho())
        #expect(registry.names.count == 4)
        #expect(await runAttempt("baton.echo", 1, registry: registry).outcome == .succeeded("replaced"))
    }
}
