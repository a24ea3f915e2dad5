import Baton
import Foundation
import Testing

/// Dead letters: a started attempt fails its node; one that never started (held beside a task
/// that kept killing its worker) goes out again, at most `RunState.unstartedDeadLetterLimit` times.
@Suite("RunState: dead letters")
struct DeadLetterTests {
    static let text = #"""
        {"nodes": {"poison": {"procedure": "p", "input": {"n": 1}, "retry": {"attempts": 5}},
                   "after": {"procedure": "p", "input": {"$from": "poison"}},
                   "other": {"procedure": "p"}}}
        """#

    @Test func aDeadLetteredAttemptThatStartedFailsItsNodeForGoodAndCancelsDependents() throws {
        var h = Harness(try graph(Self.text))
        h.start()
        h.send(.started(key: "poison", attempt: 1, worker: "w1", at: h.now))
        let commands = h.send(.deadLettered(key: "poison", attempt: 1, reason: "dead-lettered after 5 deliveries"))
        #expect(commands.cancelled == [TaskRef(key: "poison", attempt: 1)])
        #expect(commands.dispatches.isEmpty)
        #expect(h.state.nodes["poison"]?.status == .failed)  // no retry: the task itself is the problem
        #expect(h.state.nodes["poison"]?.error == "dead-lettered after 5 deliveries")
        #expect(commands.nodeChanges.first { $0.key == "poison" }?.event == .deadLettered)
        #expect(h.state.nodes["after"]?.status == .cancelled)
        #expect(h.state.nodes["other"]?.status == .queued)
    }

    @Test func aDeadLetteredAttemptThatNeverStartedGoesOutAgainAsANewAttempt() throws {
        var h = Harness(try graph(Self.text))
        h.start()
        let commands = h.send(.deadLettered(key: "poison", attempt: 1, reason: "dead-lettered after 10 deliveries"))
        #expect(commands.cancelled == [TaskRef(key: "poison", attempt: 1)])
        #expect(commands.dispatches.map { "\($0.key) \($0.attempt)" } == ["poison 2"])
        #expect(commands.dispatches.first?.input == ["n": 1])
        let event = try #require(commands.events("dead_lettered_unstarted").first)
        #expect(event.key == "poison")
        #expect(event.detail["attempt"] == 1)
        #expect(event.detail["count"] == 1)
        #expect(event.detail["error"] == "dead-lettered after 10 deliveries")
        #expect(event.detail["message"]?.stringValue?.contains("without starting") == true)
        #expect(commands.changes(for: "poison").map(\.eventKind) == [.queued])
        #expect(h.state.nodes["poison"]?.status == .queued)
        #expect(h.state.nodes["poison"]?.failures == 0, "no retry was used up")
        #expect(h.state.nodes["poison"]?.unstartedDeadLetters == 1)
        #expect(h.state.nodes["after"]?.status == .pending)

        // The old attempt is stale now; the new one runs as usual.
        h.succeed("poison", ["late": true], attempt: 1)
        #expect(h.state.nodes["poison"]?.status == .queued)
        h.succeed("poison", ["fresh": true], attempt: 2)
        #expect(h.state.nodes["after"]?.input == ["fresh": true])
    }

    @Test func theFourthNeverStartedDeadLetterFailsTheNodeSayingSo() throws {
        var h = Harness(try graph(Self.text))
        h.start()
        for attempt in 1...RunState.unstartedDeadLetterLimit {
            let again = h.send(.deadLettered(key: "poison", attempt: attempt, reason: "dead-lettered after 10 deliveries"))
            #expect(again.dispatches.map(\.attempt) == [attempt + 1])
        }
        let last = h.send(.deadLettered(key: "poison", attempt: 4, reason: "dead-lettered after 10 deliveries"))
        #expect(last.dispatches.isEmpty)
        #expect(last.cancelled == [TaskRef(key: "poison", attempt: 4)])
        #expect(last.events("dead_lettered_unstarted").isEmpty)
        #expect(last.nodeChanges.first { $0.key == "poison" }?.event == .deadLettered)
        let error = try #require(h.state.nodes["poison"]?.error)
        #expect(error.hasPrefix("dead-lettered after 10 deliveries"))
        #expect(error.contains("attempt 4 never started"), "\(error)")
        #expect(h.state.nodes["poison"]?.status == .failed)
        #expect(h.state.nodes["after"]?.status == .cancelled)
    }

    @Test func aConditionThatNeverStartedGoesOutAgainAsANewConditionAttempt() throws {
        var h = Harness(
            try graph(#"{"nodes": {"a": {"procedure": "p", "condition": {"procedure": "check", "input": {"x": 1}}}}}"#))
        h.start()
        let commands = h.send(.deadLettered(key: "a", attempt: 1, reason: "dead-lettered after 10 deliveries"))
        #expect(commands.dispatches.map { "\($0.phase) \($0.attempt) \($0.procedure)" } == ["condition 2 check"])
        #expect(commands.changes(for: "a").map(\.eventKind) == [.conditionQueued])
        #expect(h.state.nodes["a"]?.unstartedDeadLetters == 1)
    }

    @Test func aDeadLetterForAnOldAttemptIsIgnored() throws {
        var h = Harness(try graph(#"{"nodes": {"a": {"procedure": "p", "retry": {"attempts": 3}}}}"#))
        h.start()
        h.fail("a", "transient", permanent: false)
        h.advance(10)
        #expect(h.state.nodes["a"]?.attempt == 2)
        #expect(h.send(.deadLettered(key: "a", attempt: 1, reason: "old")).isEmpty)
        #expect(h.state.nodes["a"]?.status == .queued)
        #expect(h.state.nodes["a"]?.unstartedDeadLetters == 0)
    }

    @Test func theCountSurvivesAReloadAndARetryOfTheRunResetsIt() throws {
        var h = Harness(try graph(Self.text))
        h.start()
        for attempt in 1...2 { h.send(.deadLettered(key: "poison", attempt: attempt, reason: "dead-lettered after 10 deliveries")) }
        let bookkeeping = try #require(h.state.nodes["poison"]?.bookkeeping)
        #expect(bookkeeping["unstarted_dead_letters"] == 2)

        // A coordinator that loads the run from the store goes on counting where the last one stopped.
        var resumed = Harness(state: try rebuilt(h.state))
        #expect(resumed.state.nodes["poison"] == h.state.nodes["poison"])
        resumed.start()
        #expect(resumed.send(.deadLettered(key: "poison", attempt: 3, reason: "x")).dispatches.map(\.attempt) == [4])
        resumed.send(.deadLettered(key: "poison", attempt: 4, reason: "x"))
        #expect(resumed.state.nodes["poison"]?.status == .failed)

        // `baton retry` starts the node afresh, its count too.
        resumed.send(.cancel(reason: "stop"))
        resumed.send(.retry(from: nil))
        #expect(resumed.state.nodes["poison"]?.unstartedDeadLetters == 0)
        #expect(resumed.state.nodes["poison"]?.status == .queued)
    }
}
