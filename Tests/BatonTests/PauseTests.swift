import Foundation
import Testing

@testable import Baton

extension Harness {
    /// Sets what is paused, as the coordinator does when it hears of a change.
    @discardableResult
    mutating func pause(_ pauses: Pauses) -> [SchedulerCommand] {
        let r = random
        let commands = state.setPauses(pauses, at: now, random: { r })
        return commands
    }
}

@Suite("RunState: pausing a run, a pool or a procedure")
struct PauseTests {
    static let chain = #"{"nodes": {"a": {"procedure": "p"}, "b": {"procedure": "q", "pool": "gpu", "input": {"$from": "a"}}}}"#

    @Test func aPausedProcedureWaitsInsteadOfGoingOutAndGoesOnWhenResumed() throws {
        var h = Harness(try graph(Self.chain))
        h.state.pauses = Pauses(procedures: ["q"])
        #expect(h.start().dispatches.map(\.key) == ["a"], "a is not paused")
        let held = h.succeed("a", 1)
        #expect(held.dispatches.isEmpty, "b's procedure is paused: nothing goes out")
        #expect(h.state.nodes["b"]?.status == .waiting && h.state.nodes["b"]?.waitingFor == .paused)
        let change = try #require(held.changes(for: "b").last)
        #expect(change.event == .paused)
        #expect(change.detail?["name"] == "q" && change.detail?["paused"] == "procedure")
        #expect(h.state.pausedNodes == 1)
        #expect(h.pause(Pauses(procedures: ["q", "other"])).isEmpty, "a pause that only grew starts nothing")
        let resumed = h.pause(Pauses())
        #expect(resumed.dispatches.map(\.key) == ["b"])
        #expect(resumed.dispatches.first?.attempt == 1)
        #expect(h.state.nodes["b"]?.status == .queued)
        #expect(h.succeed("b", 2).runStatuses == [.succeeded])
    }

    @Test func aProcedurePausedByItsPlainNameHoldsEveryVersionAndByNameAtNOnlyThatOne() {
        let all = Pauses(procedures: ["acme.greet"])
        #expect(all.reason(run: "r", pool: "default", procedure: "acme.greet") == PauseTarget(.procedure, "acme.greet"))
        #expect(all.reason(run: "r", pool: "default", procedure: "acme.greet@2") == PauseTarget(.procedure, "acme.greet"))
        #expect(all.reason(run: "r", pool: "default", procedure: "acme.greeter@2") == nil)
        let second = Pauses(procedures: ["acme.greet@2"])
        #expect(second.reason(run: "r", pool: "default", procedure: "acme.greet@2") == PauseTarget(.procedure, "acme.greet@2"))
        #expect(second.reason(run: "r", pool: "default", procedure: "acme.greet") == nil)
        #expect(second.reason(run: "r", pool: "default", procedure: "acme.greet@3") == nil)
    }

    @Test func aPausedPoolAndAPausedRunHoldTheirNodes() throws {
        var h = Harness(try graph(Self.chain), runID: "r1")
        h.state.pauses = Pauses(pools: ["gpu"])
        h.start()
        h.succeed("a", 1)
        #expect(h.state.nodes["b"]?.waitingFor == .paused)
        #expect(h.pause(Pauses(runs: ["r1"])).isEmpty, "the pool's pause ended but the run's holds b")
        #expect(h.pause(Pauses(runs: ["other"])).dispatches.map(\.key) == ["b"])

        var r = Harness(try graph(Self.chain), runID: "r2")
        r.state.pauses = Pauses(runs: ["r2"])
        #expect(r.start().dispatches.isEmpty)
        #expect(r.state.nodes["a"]?.waitingFor == .paused)
        #expect(r.state.status == .running, "a paused run is running, its nodes waiting")
    }

    @Test func runningAttemptsFinishWhilePaused() throws {
        var h = Harness(try graph(#"{"nodes": {"a": {"procedure": "p"}, "b": {"procedure": "p"}, "c": {"procedure": "p", "after": ["a", "b"]}}}"#))
        #expect(h.start().dispatches.count == 2)
        #expect(h.pause(Pauses(procedures: ["p"])).isEmpty, "what is out stays out")
        #expect(h.succeed("a", 1).isEmpty == false)
        h.succeed("b", 2)
        #expect(h.state.nodes["a"]?.status == .succeeded && h.state.nodes["c"]?.waitingFor == .paused)
    }

    @Test func aPausedNodeGivesBackItsAdmissionAndAsksAgainOnResume() throws {
        var h = Harness(try graph(#"{"nodes": {"a": {"procedure": "p", "mutex": ["db"]}}}"#))
        #expect(h.start().acquires.map(\.key) == ["a"])
        h.pause(Pauses(procedures: ["p"]))
        let admitted = h.send(.admitted(key: "a"))
        #expect(admitted.dispatches.isEmpty)
        #expect(admitted.releases == ["a"], "a paused node holds no slot")
        #expect(h.state.nodes["a"]?.admission == AdmissionHold.none && h.state.nodes["a"]?.waitingFor == .paused)
        let resumed = h.pause(Pauses())
        #expect(resumed.acquires.map(\.key) == ["a"] && resumed.dispatches.isEmpty)
        #expect(h.send(.admitted(key: "a")).dispatches.first?.attempt == 1)
    }

    @Test func aRetryWaitsForTheResumeAndKeepsItsAttemptNumber() throws {
        var h = Harness(try graph(#"{"nodes": {"a": {"procedure": "p", "retry": {"attempts": 3, "wait": {"constant": "5s"}}}}}"#))
        h.start()
        h.fail("a", "flaky", permanent: false)
        h.pause(Pauses(procedures: ["p"]))
        #expect(h.advance(5).dispatches.isEmpty)
        #expect(h.state.nodes["a"]?.waitingFor == .paused)
        #expect(h.pause(Pauses()).dispatches.map(\.attempt) == [2])
    }

    @Test func aConditionIsPausedByItsOwnProcedureAndGoesOnWithIt() throws {
        var h = Harness(
            try graph(#"{"nodes": {"a": {"procedure": "p", "condition": {"procedure": "check", "input": {}}}}}"#))
        h.state.pauses = Pauses(procedures: ["check"])
        #expect(h.start().dispatches.isEmpty)
        #expect(h.state.nodes["a"]?.phase == .condition)
        let resumed = h.pause(Pauses())
        #expect(resumed.dispatches.map(\.phase) == [.condition] && resumed.dispatches.first?.procedure == "check")
        h.pause(Pauses(procedures: ["p"]))
        #expect(h.condition("a", .succeeded(true)).dispatches.isEmpty, "the condition passed, its procedure is paused")
        #expect(h.pause(Pauses()).dispatches.map(\.attempt) == [1], "the run goes on in the attempt its condition began")
    }

    @Test func resumeGoesInPriorityThenGraphOrder() throws {
        var h = Harness(
            try graph(
                #"{"nodes": {"a": {"procedure": "p"}, "b": {"procedure": "p", "priority": 5}, "c": {"procedure": "p"}, "d": {"procedure": "p", "priority": 5}}}"#
            ))
        h.state.pauses = Pauses(procedures: ["p"])
        h.start()
        #expect(h.pause(Pauses()).dispatches.map(\.key) == ["b", "d", "a", "c"])
    }

    @Test func aPauseSurvivesARestartAndAResumeWhileNoCoordinatorHeldTheRun() throws {
        var h = Harness(try graph(Self.chain))
        h.state.pauses = Pauses(procedures: ["q"])
        h.start()
        h.succeed("a", 1)
        var still = Harness(state: try rebuilt(h.state))
        still.state.pauses = Pauses(procedures: ["q"])
        #expect(still.start().dispatches.isEmpty)
        #expect(still.state.nodes["b"]?.waitingFor == .paused)
        var gone = Harness(state: try rebuilt(h.state))
        #expect(gone.start().dispatches.map(\.key) == ["b"], "resumed while the run was not loaded: it goes out on load")
    }

    @Test func pausedNodesCountInTheWindowSoAPausedFanOutHoldsOneWindow() throws {
        let nodes = (0..<10).map { #""n\#($0)": {"procedure": "p"}"# }.joined(separator: ", ")
        var h = Harness(try graph("{\"nodes\": {\(nodes)}}"))
        h.state.dispatchWindow = 3
        h.state.pauses = Pauses(procedures: ["p"])
        h.start()
        #expect(h.state.pausedNodes == 3)
        #expect(h.pause(Pauses()).dispatches.count == 3)
    }

    @Test func aCancelledRunEndsItsPausedNodes() throws {
        var h = Harness(try graph(Self.chain))
        h.state.pauses = Pauses(procedures: ["p"])
        h.start()
        #expect(h.send(.cancel(reason: "stop")).runStatuses == [.cancelled])
        #expect(h.state.nodes["a"]?.status == .cancelled)
        #expect(h.pause(Pauses()).isEmpty)
    }

    @Test func delaysAndSignalsAreNotPaused() throws {
        var h = Harness(try graph(#"{"nodes": {"d": {"procedure": "baton.delay", "input": {"seconds": 1}}, "s": {"signal": "go"}}}"#))
        h.state.pauses = Pauses(procedures: ["baton.delay"], runs: ["run-1"])
        h.start()
        #expect(h.state.nodes["d"]?.waitingFor == .delay)
        #expect(h.state.nodes["s"]?.waitingFor == .signal)
    }

    @Test func pauseNamesAreChecked() {
        #expect(PauseTarget.problem(kind: .procedure, name: "acme.greet") == nil)
        #expect(PauseTarget.problem(kind: .pool, name: "") == "the pool name is empty")
        #expect(PauseTarget.problem(kind: .procedure, name: "a b")?.contains("white space") == true)
        #expect(PauseTarget.problem(kind: .run, name: String(repeating: "x", count: 201))?.contains("200 bytes") == true)
        #expect(Pauses([PauseTarget(.pool, "g"), PauseTarget(.run, "r")]).targets.map(\.description) == ["run r", "pool g"])
    }
}
