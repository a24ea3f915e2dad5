import Baton
import Foundation
import Testing

@Suite("RunState: repeat")
struct RepeatTests {
    static let text = #"""
        {"nodes": {
          "poll": {"procedure": "check", "input": {"id": 7},
                   "repeat": {"until": {"select": "/done", "equals": true},
                              "wait": {"incrementing": {"initial": "1s", "increment": "2s"}}, "max": 4}},
          "next": {"procedure": "p", "input": {"$from": "poll", "select": "/n"}}}}
        """#

    @Test func runsAgainWithThePreviousOutputUntilItMatches() throws {
        var h = Harness(try graph(Self.text))
        let first = h.start()
        #expect(
            first.dispatches == [
                TaskDispatch(
                    runID: "run-1", key: "poll", attempt: 1, procedure: "check", input: ["id": 7],
                    pool: "default", priority: 0, previousOutput: nil)
            ])

        let r1 = h.succeed("poll", ["done": false, "n": 1])
        #expect(r1.dispatches.isEmpty)
        #expect(
            r1.changes(for: "poll").last
                == NodeChange(
                    key: "poll", status: .waiting, attempt: 1, output: ["done": false, "n": 1],
                    finishedAt: h.now, event: .repeating, dueAt: h.now.addingTimeInterval(1)))
        let poll = try #require(h.state.nodes["poll"])
        #expect(poll.waitingFor == .repeat)
        #expect(poll.runs == 1)
        #expect(poll.output == ["done": false, "n": 1])
        #expect(h.state.nodes["next"]?.status == .pending, "dependents wait for the last run")

        // incrementing: 1s after the first run, 1 + 2 = 3s after the second.
        let due1 = h.now.addingTimeInterval(1)
        #expect(h.advance(to: due1.addingTimeInterval(-0.001)).isEmpty)
        let second = h.advance(to: due1)
        #expect(
            second.dispatches == [
                TaskDispatch(
                    runID: "run-1", key: "poll", attempt: 2, procedure: "check", input: ["id": 7],
                    pool: "default", priority: 0, previousOutput: ["done": false, "n": 1])
            ])
        h.succeed("poll", ["done": false, "n": 2])
        #expect(h.dueIn("poll") == 3)
        let due2 = h.now.addingTimeInterval(3)
        #expect(h.advance(to: due2.addingTimeInterval(-0.001)).isEmpty)
        let third = h.advance(to: due2)
        #expect(third.dispatches.first?.attempt == 3)
        #expect(third.dispatches.first?.previousOutput == ["done": false, "n": 2])

        let done = h.succeed("poll", ["done": true, "n": 3])
        #expect(done.changes(for: "poll").last?.status == .succeeded)
        #expect(done.changes(for: "poll").last?.output == ["done": true, "n": 3])
        #expect(done.dispatches.map(\.key) == ["next"])
        #expect(done.dispatches.first?.input == 3)
        #expect(h.state.nodes["poll"]?.runs == 3)
        h.succeed("next", nil)
        #expect(h.state.status == .succeeded)
    }

    @Test func stopsAfterMaxRunsAndFails() throws {
        var h = Harness(try graph(Self.text))
        h.start()
        for n in 1...3 {
            h.succeed("poll", ["done": false, "n": .int(Int64(n))])
            h.advance(try #require(h.dueIn("poll")))
        }
        #expect(h.state.nodes["poll"]?.attempt == 4)
        let last = h.succeed("poll", ["done": false, "n": 4])
        #expect(last.dispatches.isEmpty)
        let poll = try #require(h.state.nodes["poll"])
        #expect(poll.status == .failed)
        #expect(poll.error == "repeat: output at '/done' was false, not true, after 4 runs")
        #expect(poll.output == ["done": false, "n": 4])
        #expect(h.state.nodes["next"]?.status == .cancelled)
        #expect(h.state.status == .failed)
    }

    @Test func aMissingSelectTargetIsNotAMatch() throws {
        let g = try graph(
            #"""
            {"nodes": {"poll": {"procedure": "p", "repeat": {"until": {"select": "/state", "equals": "ok"}, "max": 2}}}}
            """#)
        var h = Harness(g)
        h.start()
        h.succeed("poll", ["other": 1])
        #expect(h.state.nodes["poll"]?.status == .waiting)
        #expect(h.dueIn("poll") == 0, "the default wait is immediate")
        #expect(h.advance(0).dispatches.map(\.attempt) == [2])
        h.succeed("poll", 5)
        #expect(h.state.nodes["poll"]?.error == #"repeat: output at '/state' was nothing, not "ok", after 2 runs"#)
    }

    @Test func theWholeOutputAndStructuredValuesCanBeMatched() throws {
        let g = try graph(
            #"""
            {"nodes": {"poll": {"procedure": "p", "repeat": {"until": {"equals": {"state": "ok", "items": [1, 2]}}, "max": 3}}}}
            """#)
        var h = Harness(g)
        h.start()
        h.succeed("poll", ["state": "ok", "items": [1]])
        #expect(h.state.nodes["poll"]?.status == .waiting)
        h.advance(0)
        h.succeed("poll", ["items": [1, 2], "state": "ok"])
        #expect(h.state.nodes["poll"]?.status == .succeeded)
        #expect(h.state.status == .succeeded)
    }

    @Test func aMatchOnTheFirstRunDoesNotRepeat() throws {
        var h = Harness(try graph(Self.text))
        h.start()
        let done = h.succeed("poll", ["done": true, "n": 0])
        #expect(done.dispatches.map(\.key) == ["next"])
        #expect(h.state.nodes["poll"]?.runs == 1)
        #expect(h.log.nodeChanges.allSatisfy { $0.status != .waiting })
    }

    @Test func aWaitingRepeatSurvivesARestart() throws {
        var h = Harness(try graph(Self.text))
        h.start()
        h.succeed("poll", ["done": false, "n": 1])
        var resumed = Harness(state: try rebuilt(h.state))
        resumed.now = h.now
        #expect(resumed.start().dispatches.isEmpty)
        #expect(resumed.state.nodes["poll"]?.runs == 1)
        #expect(resumed.state.nextWakeUp == h.now.addingTimeInterval(1))
        let again = resumed.advance(1)
        #expect(again.dispatches.first?.previousOutput == ["done": false, "n": 1])
        #expect(again.dispatches.first?.attempt == 2)
    }
}
