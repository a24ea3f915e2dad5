import Baton
import BatonDemo
import BatonTesting
import Foundation
import Testing

/// The test kit: graphs run in process on a `TestClock`, so hour-long waits take no real time.
/// Every assertion here is on virtual timestamps, never on how long the test took.
@Suite("BatonTesting: GraphTest and the TestClock")
struct TestKitTests {
    let start = TestClock.defaultStart

    @Test func anHourLongRetryBackOffRunsAtVirtualTime() async throws {
        let run = try await GraphTest().run(
            json: #"""
                {"nodes": {"flaky": {"procedure": "baton.fail", "input": {"message": "busy", "succeed_on_attempt": 3},
                                     "retry": {"attempts": 3, "wait": {"constant": "1h"}}}}}
                """#)
        try run.expectSucceeded()
        #expect(try run.attempts(of: "flaky") == 3)
        #expect(try run.output(of: "flaky") == ["attempt": 3])
        // Two back-offs of an hour each; the attempts themselves take no virtual time.
        let queued = run.events(of: "flaky").filter { $0.kind == "queued" }.map { $0.at.timeIntervalSince(start) }
        #expect(queued == [0, 3600, 7200])
        #expect(
            run.events(of: "flaky").filter { $0.kind == "retrying" }.map { $0.change?.dueAt } == [
                start.addingTimeInterval(3600), start.addingTimeInterval(7200),
            ])
        #expect(run.duration == 7200)
    }

    @Test func anHourLongDelayFiresAtVirtualTime() async throws {
        let run = try await GraphTest().run(
            json: #"""
                {"nodes": {"wait": {"procedure": "baton.delay", "input": {"seconds": 3600}},
                           "after": {"procedure": "baton.echo", "input": {"$from": "wait", "select": "/fired_at"}}}}
                """#)
        try run.expectSucceeded()
        let fired = start.addingTimeInterval(3600)
        let text = Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(fired)
        #expect(try run.output(of: "wait") == ["fired_at": .string(text)])
        #expect(try run.output(of: "after") == .string(text))
        #expect(run.time(of: "succeeded", for: "wait") == fired)
        #expect(run.time(of: "dispatched", for: "after") == fired)
        #expect(run.time(of: "started", for: "after") == fired, "named as the cluster names it, not `running`")
        #expect(run.events(of: "after").map(\.kind) == ["queued", "dispatched", "started", "succeeded"])
    }

    @Test func jitterIsRepeatableWithASeed() async throws {
        let text = #"""
            {"nodes": {"flaky": {"procedure": "baton.fail", "input": {"message": "busy", "succeed_on_attempt": 4},
                                 "retry": {"attempts": 4, "wait": {"exponential": {"initial": "10m", "max": "1h"}}, "jitter": true}}}}
            """#
        func waits(seed: UInt64) async throws -> [Double] {
            var test = GraphTest()
            test.randomSeed = seed
            let run = try await test.run(json: text)
            try run.expectSucceeded()
            return run.events(of: "flaky").filter { $0.kind == "queued" }.map { $0.at.timeIntervalSince(start) }
        }
        let first = try await waits(seed: 7)
        #expect(try await waits(seed: 7) == first)
        #expect(try await waits(seed: 8) != first)
        #expect(first.count == 4)
        // Each wait is the exponential one (10m, 20m, 40m) spread over [½, 1½] of itself.
        let gaps = zip(first.dropFirst(), first).map { $0 - $1 }
        for (gap, base) in zip(gaps, [600.0, 1200, 2400]) { #expect(gap >= base * 0.5 && gap < base * 1.5) }
    }

    @Test func aManualClockMovesOnlyWhenTheTestAdvancesIt() async throws {
        let clock = TestClock(mode: .manual)
        let graph = try GraphDecoder().decode(
            Array(#"{"nodes": {"d": {"procedure": "baton.delay", "input": {"seconds": 3600}}}}"#.utf8))
        let running = Task { await GraphTest().run(graph, clock: clock) }
        let due = await clock.nextWakeUp()
        #expect(due == start.addingTimeInterval(3600))
        clock.advance(by: 1800)
        #expect(await clock.nextWakeUp() == due, "half way, the delay still waits")
        clock.advance(to: try #require(due))
        let run = await running.value
        try run.expect("d", is: .succeeded)
        #expect(run.endedAt == due)
        #expect(await clock.nextWakeUp() == nil, "the run has ended")
    }

    @Test func aManualClockTimesOutAProcedureThatNeverEnds() async throws {
        let clock = TestClock(mode: .manual)
        let graph = try GraphDecoder().decode(
            Array(#"{"nodes": {"s": {"procedure": "baton.sleep", "input": {"seconds": 86400}, "timeout": "1h"}}}"#.utf8))
        let running = Task { await GraphTest().run(graph, clock: clock) }
        let deadline = try #require(await clock.nextDeadline())
        #expect(deadline == start.addingTimeInterval(3600 + RunState.timeoutGrace(3600)))
        clock.advance(to: deadline)
        let run = await running.value
        try run.expectFailure(of: "s", containing: "timed out: no result within 3600s (plus 360s grace)")
        #expect(run.time(of: "timed_out", for: "s") == deadline)
    }

    struct Greet: Procedure {
        static let name = "acme.greet"
        struct Input: Codable, Sendable { let name: String }
        struct Output: Codable, Sendable { let greeting: String }
        func execute(_ input: Input, context: ProcedureContext) async throws -> Output {
            guard !input.name.isEmpty else { throw ProcedureFailure("name is empty", permanent: true) }
            return Output(greeting: "Hello, \(input.name)!")
        }
    }

    /// The README's "Testing your procedures" example, as it stands there.
    @Test func readmeExample() async throws {
        var test = GraphTest()
        test.register(Greet())
        let run = try await test.run(
            json: #"""
                {"nodes": {"greet": {"procedure": "acme.greet", "input": {"name": "Ada"},
                                     "retry": {"attempts": 3, "wait": {"constant": "1h"}}}}}
                """#)
        try run.expectSucceeded()
        #expect(try run.output(of: "greet", as: Greet.Output.self).greeting == "Hello, Ada!")
    }

    @Test func assertionsSayWhatWasExpectedAndFound() async throws {
        var test = GraphTest()
        test.register(Greet())
        let run = try await test.run(
            json: #"""
                {"nodes": {"greet": {"procedure": "acme.greet", "input": {"name": ""}},
                           "echo": {"procedure": "baton.echo", "input": {"v": 1}}}}
                """#)
        #expect(run.status == .failed)
        func message(_ body: () throws -> Void) -> String? {
            do { try body() } catch let failure as TestFailure { return failure.description } catch { return "\(error)" }
            return nil
        }
        let table = """
            run failed: node 'greet' failed: name is empty (2 nodes)
              NODE   STATUS     ATTEMPTS  ERROR
              greet  failed     1         name is empty
              echo   succeeded  1
            """
        #expect(message { try run.expectSucceeded() } == "expected the run to succeed\n" + table)
        #expect(message { try run.expect("greet", is: .succeeded) } == "node 'greet' is failed, expected succeeded (error: name is empty)\n" + table)
        // Printed by a failed #expect, a run is that table, not a dump of its state.
        #expect(String(describing: run) == table && String(reflecting: run) == table)
        #expect(message { try run.expectOutput(of: "echo", equals: ["v": 2]) } == #"node 'echo': output is {"v":1}, expected {"v":2}"#)
        #expect(message { _ = try run.output(of: "greet", as: Greet.Output.self) } == "node 'greet' has no output: it is failed (name is empty)")
        #expect(
            message { _ = try run.output(of: "echo", as: Greet.Output.self) }?.hasPrefix(#"node 'echo': output {"v":1} does not decode as Output"#)
                == true)
        #expect(message { _ = try run.node("ghost") } == "no node 'ghost' in the run (nodes: greet, echo)")
        #expect(message { try run.expectFailure(of: "greet", containing: "empty") } == nil)
        #expect(message { try run.expect("echo", is: .succeeded).expectOutput(of: "echo", equals: ["v": 1]) } == nil)
    }

    @Test func theTableOfALargeRunIsCut() async throws {
        var nodes: [(key: String, value: JSON)] = []
        for i in 0..<100 { nodes.append(("n\(i)", ["procedure": "baton.echo", "input": ["i": .int(Int64(i))]])) }
        let graph: JSON = .object(JSONObject([("nodes", .object(JSONObject(nodes)))]))
        let run = try await GraphTest().run(json: graph.serialized())
        let lines = run.table.split(separator: "\n")
        #expect(lines.count == 2 + TestRun.tableRows + 1, "\(run.table)")
        #expect(lines.last == "  … and 60 more")
    }

    /// A procedure's spawned graph is type-checked against the registry's schemas before it is
    /// added: the spawning node fails with every problem, and nothing of the graph runs.
    @Test func aSpawnedGraphThatDoesNotTypeCheckFailsItsNode() async throws {
        var test = GraphTest()
        test.register(Greet())
        test.register(SpawnsBadGreetings())
        let run = try await test.run(json: #"{"nodes": {"s": {"procedure": "test.spawns-bad-greetings", "retry": {"attempts": 3}}}}"#)
        try run.expectFailure(of: "s", containing: "spawned an invalid graph (2 problems)")
        let error = try run.error(of: "s") ?? ""
        #expect(error.contains("node 'number', field 'input/name': expected string, found integer"), "\(error)")
        #expect(error.contains("node 'nothing', field 'input/name': expected string, found nothing"), "\(error)")
        #expect(run.state.graph.order == ["s"], "no child was added")
        #expect(try run.attempts(of: "s") == 1, "a type error is permanent: no retry")
    }

    /// A thrown error's type name is kept apart from its message, in each failure's change and event.
    @Test func aThrownErrorsTypeIsRecordedApart() async throws {
        var test = GraphTest()
        test.register(OverQuota())
        test.register(Greet())
        let run = try await test.run(
            json: #"""
                {"nodes": {"q": {"procedure": "test.over-quota", "retry": {"attempts": 2}},
                           "g": {"procedure": "acme.greet", "input": {"name": ""}}}}
                """#)
        let failures = run.events(of: "q").compactMap(\.change).filter { $0.error != nil }
        #expect(failures.map(\.eventKind) == [.retrying, .failed])
        #expect(failures.allSatisfy { $0.errorType == "OverQuota.QuotaError" }, "\(failures)")
        #expect(failures.last?.error == "test.over-quota threw OverQuota.QuotaError: QuotaError(used: 11, limit: 10)")
        // A ProcedureFailure is the author's own words: no type.
        #expect(run.events(of: "g").compactMap(\.change).last { $0.error != nil }?.errorType == nil)
    }

    @Test func aRejectedGraphListsItsProblems() async throws {
        await #expect(throws: TestFailure.self) {
            try await GraphTest().run(json: #"{"nodes": {"x": {"procedure": "acme.unknown"}}}"#)
        }
    }

    @Test func exampleFilesRunAtVirtualTime() async throws {
        let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../examples").standardized
        let retry = try await GraphTest().run(file: examples.appendingPathComponent("retry-backoff.json").path)
        try retry.expectSucceeded().expectOutput(of: "flaky", equals: ["attempt": 3])
        try retry.expectFailure(of: "hopeless", containing: "bad credentials")
        #expect(try retry.attempts(of: "hopeless") == 1, "a permanent error is not retried")
        #expect(retry.duration > 0, "two back-offs of about 200ms and 400ms, on the virtual clock")

        let delay = try await GraphTest().run(file: examples.appendingPathComponent("delay.json").path)
        try delay.expectSucceeded()
        #expect(delay.time(of: "succeeded", for: "pause") == start.addingTimeInterval(2))

        let polled = try await GraphTest().run(file: examples.appendingPathComponent("repeat-until.json").path)
        try polled.expectSucceeded()
        #expect(polled.state.graph.name == "repeat-until")
        #expect(try polled.attempts(of: "poll") == 3, "3, 2, 1: two waits of 100ms")
        #expect(abs(polled.duration - 0.2) < 0.001)
    }
}

extension TestKitTests {
    static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../examples").standardized

    @Test func aYAMLFileAndARunInput() async throws {
        let yaml = try await GraphTest().run(file: Self.examples.appendingPathComponent("word-count.yaml").path)
        try yaml.expectSucceeded()
        #expect(yaml.state.graph.name == "word-count")
        let given = try await GraphTest().run(
            file: Self.examples.appendingPathComponent("run-input.json").path, input: ["numbers": [4, 5, 6], "with_report": false])
        try given.expectSucceeded().expectOutput(of: "sum", equals: 15).expectOutput(of: "scaled", equals: 150).expect("report", is: .skipped)
    }
}

/// Spawns a graph whose inputs do not fit `acme.greet`'s.
struct SpawnsBadGreetings: SpawningProcedure {
    static let name = "test.spawns-bad-greetings"
    func execute(_ input: JSON, context: ProcedureContext) async throws -> Spawnable<JSON> {
        .spawn(
            SubGraph(
                document: [
                    "nodes": [
                        "number": ["procedure": "acme.greet", "input": ["name": 7]],
                        "nothing": ["procedure": "acme.greet", "input": [:]],
                        "fine": ["procedure": "acme.greet", "input": ["name": "Ada"]],
                    ],
                    "output": ["$from": "fine"],
                ]))
    }
}

/// Always throws an error of its own type.
struct OverQuota: Procedure {
    static let name = "test.over-quota"
    struct QuotaError: Error { let used: Int, limit: Int }
    func execute(_ input: JSON, context: ProcedureContext) async throws -> JSON { throw QuotaError(used: 11, limit: 10) }
}
