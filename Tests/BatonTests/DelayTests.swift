import Baton
import BatonTesting
import Foundation
import Testing

@Suite("RunState: baton.delay")
struct DelayTests {
    static let text = #"""
        {"nodes": {
          "d": {"procedure": "baton.delay", "input": {"seconds": 90}},
          "after": {"procedure": "p", "input": {"at": {"$from": "d", "select": "/fired_at"}}}}}
        """#

    @Test func aDelayWaitsWithoutAWorkerThenFires() throws {
        var h = Harness(try graph(Self.text))
        let first = h.start()
        #expect(first.dispatches.isEmpty, "the coordinator runs it, no worker does")
        #expect(
            first.changes(for: "d") == [
                NodeChange(
                    key: "d", status: .waiting, attempt: 1, input: ["seconds": 90], event: .delay,
                    dueAt: h.now.addingTimeInterval(90))
            ])
        let d = try #require(h.state.nodes["d"])
        #expect(d.status == .waiting)
        #expect(d.waitingFor == .delay)
        #expect(h.state.nextWakeUp == h.now.addingTimeInterval(90))

        let due = h.now.addingTimeInterval(90)
        #expect(h.advance(to: due.addingTimeInterval(-0.5)).isEmpty)
        let fired = h.advance(to: due)
        // 1_000_000 s after the epoch is 1970-01-12T13:46:40Z; 90 s later:
        let output: JSON = ["fired_at": "1970-01-12T13:48:10.000Z"]
        #expect(fired.changes(for: "d") == [NodeChange(key: "d", status: .succeeded, attempt: 1, output: output, startedAt: due, finishedAt: due)])
        #expect(h.state.nodes["d"]?.output == output)
        #expect(fired.dispatches.map(\.key) == ["after"])
        #expect(fired.dispatches.first?.input == ["at": "1970-01-12T13:48:10.000Z"])
        h.succeed("after", nil)
        #expect(h.state.status == .succeeded)
    }

    @Test func aLateTickFiresWithTheTimeItFired() throws {
        var h = Harness(try graph(Self.text))
        h.start()
        h.advance(100)
        #expect(h.state.nodes["d"]?.output == ["fired_at": "1970-01-12T13:48:20.000Z"])
    }

    @Test func untilAnInstant() throws {
        let g = try graph(#"{"nodes": {"d": {"procedure": "baton.delay", "input": {"until": "1970-01-12T14:00:00Z"}}}}"#)
        var h = Harness(g)
        h.start()
        // 14:00:00 is 13 min 20 s after 13:46:40.
        #expect(h.state.nodes["d"]?.dueAt == Date(timeIntervalSince1970: 1_000_800))
        #expect(h.advance(799).isEmpty)
        #expect(h.advance(1).changes(for: "d").map(\.status) == [.succeeded])
        #expect(h.state.status == .succeeded)
    }

    @Test func untilWithFractionalSecondsAndAnOffset() throws {
        let g = try graph(#"{"nodes": {"d": {"procedure": "baton.delay", "input": {"until": "1970-01-12T15:00:00.500+01:00"}}}}"#)
        var h = Harness(g)
        h.start()
        #expect(h.state.nodes["d"]?.dueAt == Date(timeIntervalSince1970: 1_000_800.5))
    }

    @Test func anInstantInThePastFiresOnTheNextTick() throws {
        let g = try graph(#"{"nodes": {"d": {"procedure": "baton.delay", "input": {"until": "1970-01-01T00:00:00Z"}}}}"#)
        var h = Harness(g)
        h.start()
        #expect(h.state.nodes["d"]?.status == .waiting)
        #expect(h.advance(0).changes(for: "d").map(\.status) == [.succeeded])
    }

    @Test func anInstantInThePastTakesNoTime() throws {
        // Started at its due time, a delay until 1970 would show decades between started_at and finished_at.
        let g = try graph(#"{"nodes": {"d": {"procedure": "baton.delay", "input": {"until": "1970-01-01T00:00:00Z"}}}}"#)
        var h = Harness(g)
        let armed = h.now
        #expect(h.start().changes(for: "d").first?.dueAt == armed, "a due time already past is the time the delay started")
        let fired = h.advance(0.25).changes(for: "d")
        #expect(
            fired == [
                NodeChange(
                    key: "d", status: .succeeded, attempt: 1, output: ["fired_at": "1970-01-12T13:46:40.250Z"],
                    startedAt: armed, finishedAt: h.now)
            ])
        let change = try #require(fired.first)
        #expect(try #require(change.startedAt) <= (try #require(change.finishedAt)))
    }

    @Test func secondsFromAReference() throws {
        let g = try graph(
            #"""
            {"nodes": {"a": {"procedure": "p"},
                       "d": {"procedure": "baton.delay", "input": {"seconds": {"$from": "a", "select": "/wait"}}}}}
            """#)
        var h = Harness(g)
        h.start()
        h.succeed("a", ["wait": 2.5])
        #expect(h.dueIn("d") == 2.5)
        h.advance(2.5)
        #expect(h.state.nodes["d"]?.status == .succeeded)
    }

    @Test("a bad input from a reference fails the node at once", arguments: [JSON.string("x"), JSON.int(-1), JSON.int(40_000_000)])
    func badInputFromAReference(_ wait: JSON) throws {
        let g = try graph(
            #"""
            {"nodes": {"a": {"procedure": "p"},
                       "d": {"procedure": "baton.delay", "input": {"seconds": {"$from": "a"}}, "retry": {"attempts": 3}}}}
            """#)
        var h = Harness(g)
        h.start()
        h.succeed("a", wait)
        let d = try #require(h.state.nodes["d"])
        #expect(d.status == .failed)
        #expect(d.error?.hasPrefix("baton.delay: seconds must be a number from 0 to 31622400") == true)
        #expect(d.dueAt == nil)
        #expect(h.state.status == .failed)
    }

    @Test(
        "a bad literal input is refused when the graph is submitted",
        arguments: [
            #"{"seconds": -1}"#, #"{"seconds": "5"}"#, #"{"until": "tomorrow"}"#, #"{"seconds": 1, "until": "1970-01-01T00:00:00Z"}"#,
            #"{}"#, #"5"#, #"{"minutes": 5}"#,
        ])
    func badLiteralInput(_ input: String) {
        let found = problems(#"{"nodes": {"d": {"procedure": "baton.delay", "input": \#(input)}}}"#)
        #expect(found.count == 1)
        #expect(found.first?.node == "d")
        #expect(found.first?.field == "input")
    }

    @Test("a delay is not a condition: one problem, also where procedure names are checked", arguments: [nil, Set(["p"])] as [Set<String>?])
    func aDelayIsNotACondition(_ known: Set<String>?) {
        let found = problems(#"{"nodes": {"n": {"procedure": "p", "condition": {"procedure": "baton.delay"}}}}"#, knownProcedures: known)
        #expect(found.map(\.field) == ["condition/procedure"])
        #expect(found.first?.message == "baton.delay cannot be a condition")
    }

    @Test func aDelayTimerSurvivesARestart() throws {
        var h = Harness(try graph(Self.text))
        h.start()
        h.advance(30)
        var resumed = Harness(state: try rebuilt(h.state))
        resumed.now = h.now
        #expect(resumed.state.nodes["d"]?.waitingFor == .delay)
        #expect(resumed.state.nextWakeUp == harnessEpoch.addingTimeInterval(90))
        #expect(resumed.start().isEmpty, "nothing to publish: the timer is in the state")
        #expect(resumed.advance(59).isEmpty)
        let fired = resumed.advance(1)
        #expect(fired.changes(for: "d").map(\.status) == [.succeeded])
        #expect(fired.dispatches.map(\.key) == ["after"])
    }

    // MARK: - In process, on the test kit's clock

    @Test func localEngineFiresADelayAtItsTime() async throws {
        let run = try await GraphTest(registry: .builtIn).run(
            json: #"""
                {"nodes": {"d": {"procedure": "baton.delay", "input": {"seconds": 5400}},
                           "e": {"procedure": "baton.echo", "input": {"$from": "d"}}}}
                """#)
        try run.expectSucceeded()
        let due = TestClock.defaultStart.addingTimeInterval(5400)
        let fired = try #require(run.output(of: "e")?["fired_at"]?.stringValue)
        #expect(try Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(fired) == due)
        #expect(run.time(of: "delay", for: "d") == TestClock.defaultStart)
        #expect(run.time(of: "succeeded", for: "d") == due)
        #expect(run.endedAt == due)
    }
}
