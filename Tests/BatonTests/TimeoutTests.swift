import BatonTesting
import Foundation
import Testing

@testable import Baton

@Suite("RunState: timeout")
struct TimeoutTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let text: String
        let timeout: Double
        let grace: Double
        var testDescription: String { text }
    }

    @Test(
        "deadline = started + timeout + grace, grace = max(2s, 10%)",
        arguments: [
            Case(text: "250ms", timeout: 0.25, grace: 2), Case(text: "10s", timeout: 10, grace: 2),
            Case(text: "30s", timeout: 30, grace: 3), Case(text: "5m", timeout: 300, grace: 30),
        ])
    func deadline(_ c: Case) throws {
        let (text, timeout, grace) = (c.text, c.timeout, c.grace)
        #expect(RunState.timeoutGrace(timeout) == grace)
        var h = Harness(try graph(#"{"nodes": {"a": {"procedure": "p", "timeout": "\#(text)"}}}"#))
        let first = h.start()
        #expect(first.dispatches.first?.timeout == timeout, "the worker gets the timeout too")
        #expect(h.state.nodes["a"]?.deadline == nil, "a queued attempt has no deadline yet")
        h.started("a")
        #expect(h.deadlineIn("a") == timeout + grace)
        #expect(h.state.nextWakeUp == h.now.addingTimeInterval(timeout + grace))
    }

    @Test func aLateAttemptFailsTimedOutAndIsCancelled() throws {
        var h = Harness(
            try graph(
                #"""
                {"nodes": {"a": {"procedure": "p", "timeout": "30s"}, "b": {"procedure": "p", "input": {"$from": "a"}}}}
                """#))
        h.start()
        h.started("a")
        let deadline = h.now.addingTimeInterval(33)
        #expect(h.advance(to: deadline.addingTimeInterval(-0.001)).isEmpty)
        #expect(h.state.nodes["a"]?.status == .running)
        let out = h.advance(to: deadline)
        #expect(out.cancelled == [TaskRef(key: "a", attempt: 1)])
        let message = "timed out: no result within 30s (plus 3s grace)"
        #expect(out.changes(for: "a") == [NodeChange(key: "a", status: .failed, attempt: 1, error: message, worker: "w", event: .timedOut)])
        #expect(h.state.nodes["a"]?.deadline == nil)
        #expect(h.state.nodes["b"]?.status == .cancelled)
        #expect(out.runStatuses == [.failed])
        #expect(h.state.error == "node 'a' failed: \(message)")
        // The worker's answer comes too late.
        #expect(h.succeed("a", "late").isEmpty)
        #expect(h.state.nodes["a"]?.status == .failed)
    }

    @Test func theDeadlineCountsFromWhenTheWorkerStarted() throws {
        var h = Harness(try graph(#"{"nodes": {"a": {"procedure": "p", "timeout": "10s"}}}"#))
        h.start()
        h.started("a", at: h.now.addingTimeInterval(-5))
        #expect(h.deadlineIn("a") == 7)
        let deadline = h.now.addingTimeInterval(7)
        #expect(h.advance(to: deadline.addingTimeInterval(-0.1)).isEmpty)
        #expect(h.advance(to: deadline).cancelled == [TaskRef(key: "a", attempt: 1)])
    }

    @Test func aResultInTimeClearsTheDeadline() throws {
        var h = Harness(try graph(#"{"nodes": {"a": {"procedure": "p", "timeout": "10s"}, "b": {"procedure": "p"}}}"#))
        h.start()
        h.started("a")
        h.advance(5)
        h.succeed("a", 1)
        #expect(h.state.nodes["a"]?.deadline == nil)
        #expect(h.state.nextWakeUp == nil)
        #expect(h.advance(100).isEmpty)
        #expect(h.state.nodes["a"]?.status == .succeeded)
    }

    @Test func aQueuedAttemptThatNeverStartedDoesNotTimeOut() throws {
        var h = Harness(try graph(#"{"nodes": {"a": {"procedure": "p", "timeout": "1s"}}}"#))
        h.start()
        #expect(h.state.nextWakeUp == nil)
        #expect(h.advance(3600).isEmpty)
        #expect(h.state.nodes["a"]?.status == .queued)
    }

    @Test func aTimedOutAttemptIsRetriedWhenThePolicyAllows() throws {
        var h = Harness(
            try graph(
                #"""
                {"nodes": {"a": {"procedure": "p", "timeout": "10s", "retry": {"attempts": 2, "wait": {"constant": "5s"}}}}}
                """#))
        h.start()
        h.started("a")
        let out = h.advance(12)
        let message = "timed out: no result within 10s (plus 2s grace)"
        #expect(out.cancelled == [TaskRef(key: "a", attempt: 1)])
        let timedOut = out.events("timed_out")
        #expect(timedOut.count == 1)
        #expect(timedOut.first?.key == "a")
        #expect(timedOut.first?.detail == ["attempt": 1, "error": .string(message)])
        #expect(
            out.changes(for: "a") == [
                NodeChange(
                    key: "a", status: .waiting, attempt: 1, error: message, finishedAt: h.now,
                    event: .retrying, dueAt: h.now.addingTimeInterval(5))
            ])
        #expect(h.state.nodes["a"]?.deadline == nil)
        // Attempt 1's result arrives while waiting, then after attempt 2 was queued: both stale.
        #expect(h.succeed("a", "late", attempt: 1).isEmpty)
        #expect(h.advance(5).dispatches.map(\.attempt) == [2])
        #expect(h.succeed("a", "late", attempt: 1).isEmpty)
        h.started("a")
        #expect(h.deadlineIn("a") == 12)
        h.succeed("a", "ok")
        #expect(h.state.status == .succeeded)
    }

    @Test func aConditionAttemptHasNoDeadlineButItsProcedureDoes() throws {
        var h = Harness(
            try graph(
                #"""
                {"nodes": {"a": {"procedure": "p", "timeout": "10s", "condition": {"procedure": "check"}}}}
                """#))
        h.start()
        h.started("a")
        #expect(h.advance(1000).isEmpty)
        h.condition("a", .succeeded(true))
        h.started("a")
        #expect(h.deadlineIn("a") == 12)
    }

    @Test func aDeadlineSurvivesARestart() throws {
        var h = Harness(try graph(#"{"nodes": {"a": {"procedure": "p", "timeout": "1m"}}}"#))
        h.start()
        h.started("a")
        let deadline = try #require(h.state.nodes["a"]?.deadline)
        var resumed = Harness(state: try rebuilt(h.state))
        resumed.now = h.now
        #expect(resumed.state.nodes["a"]?.deadline == deadline)
        #expect(resumed.state.nextWakeUp == deadline)
        #expect(resumed.start().dispatches.isEmpty, "a running attempt is its worker's; the deadline still holds")
        #expect(deadline == h.now.addingTimeInterval(66))
        #expect(resumed.advance(to: deadline.addingTimeInterval(-0.1)).isEmpty)
        #expect(resumed.advance(to: deadline).cancelled == [TaskRef(key: "a", attempt: 1)])
        #expect(resumed.state.nodes["a"]?.status == .failed)
    }

    @Test func defaultsTimeoutAppliesAndANodeOverridesIt() throws {
        var h = Harness(
            try graph(
                #"""
                {"defaults": {"timeout": "5m"}, "nodes": {"a": {"procedure": "p"}, "b": {"procedure": "p", "timeout": "250ms"}}}
                """#))
        let first = h.start()
        #expect(first.dispatches.map(\.timeout) == [300, 0.25])
    }

    // MARK: - In process

    /// The attempt's own timeout race is on the real clock (as on a worker): the 5 s sleep ends
    /// after 200 ms with the race's message, not the scheduler's deadline one. No wall-clock assertion:
    /// the message is what only the race writes.
    @Test func localEngineTimesOutASleepWithTheRace() async throws {
        let run = try await GraphTest(registry: .builtIn).run(
            json: #"{"nodes": {"s": {"procedure": "baton.sleep", "input": {"seconds": 5}, "timeout": "200ms"}}}"#)
        #expect(run.status == .failed)
        try run.expectFailure(of: "s", containing: "timed out")
        #expect(try run.error(of: "s") == "timed out after 200ms")
    }
}

@Suite("ProcedureRegistry: the timeout race")
struct TimeoutRaceTests {
    /// Set when the race's sleeper ends, and whether it was cancelled.
    final class SleeperEnd: @unchecked Sendable {
        // Safe: `cancelled` is only touched under `lock`.
        private let lock = NSLock()
        private var cancelled: Bool?
        func set(_ value: Bool) { lock.withLock { cancelled = value } }
        var value: Bool? { lock.withLock { cancelled } }
    }

    @Test func aProcedureThatEndsFirstCancelsTheSleeper() async throws {
        let end = SleeperEnd()
        let (outcome, _) = await ProcedureRegistry.race({ .succeeded(JSON.int(1)) }, timeout: 3600) { seconds in
            do { try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000)) } catch {
                end.set(true)
                throw error
            }
            end.set(false)
        }
        #expect(outcome == .succeeded(1))
        // The sleeper of an hour ends (cancelled) at once, not in an hour.
        let deadline = ContinuousClock.now + .seconds(10)
        while end.value == nil && ContinuousClock.now < deadline { await Task.yield() }
        #expect(end.value == true)
    }

    @Test func aTimeoutCancelsTheProcedure() async {
        let work: @Sendable () async -> AttemptOutcome<JSON> = {
            do { try await Task.sleep(nanoseconds: 3_600_000_000_000) } catch { return .failed(message: "cancelled", permanent: false) }
            return .succeeded(JSON.int(1))
        }
        let (outcome, body) = await ProcedureRegistry.race(work, timeout: 0.05)
        #expect(outcome == .failed(message: "timed out after 50ms", permanent: false))
        #expect(await body.value == .failed(message: "cancelled", permanent: false), "the procedure saw the cancellation")
    }

    /// A procedure that ignores cancellation: the timeout comes back at once, while the procedure
    /// still waits at its gate; `body` ends only once the gate opens and the procedure returns.
    @Test func aTimeoutComesAtOnceButTheBodyEndsOnlyWhenTheProcedureReturns() async {
        let gate = Gate()
        let work: @Sendable () async -> AttemptOutcome<JSON> = {
            await gate.wait()
            return .succeeded(JSON.int(1))
        }
        let (outcome, body) = await ProcedureRegistry.race(work, timeout: 0.05)
        #expect(outcome == .failed(message: "timed out after 50ms", permanent: false))
        #expect(await Self.eventually { gate.waiting == 1 }, "the procedure is still running")
        gate.open()
        #expect(await body.value == .succeeded(1), "its late outcome is the body's, not the attempt's")
    }

    /// On a worker: `runAttempt` posts the timeout through `report` at once, and returns (so the
    /// worker frees the slot) only after the procedure, which ignores cancellation, has returned.
    @Test func runAttemptReportsATimeoutAtOnceAndReturnsWhenTheProcedureReturns() async {
        let gate = Gate()
        var registry = ProcedureRegistry()
        registry.register(IgnoresCancellation(gate: gate))
        let events = Events()
        let task = TaskDispatch(
            runID: "r", key: "k", attempt: 1, procedure: IgnoresCancellation.name, input: [:], pool: "default", priority: 0,
            timeout: 0.05)
        let attempt = Task {
            await registry.runAttempt(task, worker: "w", logger: testLogger) { result in
                events.append("reported: \(result.outcome)")
            }
            events.append("returned")
        }
        // The timeout is reported while the procedure still waits at the gate, which only this test opens.
        #expect(await Self.eventually { !events.all.isEmpty })
        #expect(events.all == [#"reported: failed(message: "timed out after 50ms", permanent: false)"#])
        #expect(await Self.eventually { gate.waiting == 1 })
        #expect(events.all.count == 1, "runAttempt returned while the procedure still ran")
        gate.open()
        await attempt.value
        #expect(events.all.last == "returned")
        #expect(events.all.count == 2)
        #expect(gate.passed == 1)
    }

    /// Whether `condition` holds within 60 s, checking every millisecond. A minute: only a test that
    /// fails waits it out, and the unit tests' CPU-bound simulations can hold the cooperative threads
    /// for tens of seconds on a busy 2-core machine (10 s failed there).
    static func eventually(_ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(60)
        while !condition() {
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(nanoseconds: 1_000_000)
        }
        return true
    }

    /// A procedure that waits at `gate` and ignores cancellation.
    struct IgnoresCancellation: Procedure {
        static let name = "test.ignores-cancellation"
        struct Input: Codable, Sendable {}
        let gate: Gate
        func execute(_ input: Input, context: ProcedureContext) async throws -> Int {
            await gate.wait()
            return 1
        }
    }

    /// Holds whoever waits until `open()`; waiting ignores cancellation (no cancellation handler).
    final class Gate: @unchecked Sendable {
        // Safe: every field is only touched under `lock`.
        private let lock = NSLock()
        private var isOpen = false
        private var waiters: [CheckedContinuation<Void, Never>] = []
        private var passedCount = 0
        var waiting: Int { lock.withLock { waiters.count } }
        var passed: Int { lock.withLock { passedCount } }

        func wait() async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let through: Bool = lock.withLock {
                    if isOpen { passedCount += 1 } else { waiters.append(continuation) }
                    return isOpen
                }
                if through { continuation.resume() }
            }
        }

        func open() {
            let released: [CheckedContinuation<Void, Never>] = lock.withLock {
                isOpen = true
                defer { waiters = [] }
                passedCount += waiters.count
                return waiters
            }
            for continuation in released { continuation.resume() }
        }
    }

    /// What happened, in order.
    final class Events: @unchecked Sendable {
        // Safe: `list` is only touched under `lock`.
        private let lock = NSLock()
        private var list: [String] = []
        func append(_ event: String) { lock.withLock { list.append(event) } }
        var all: [String] { lock.withLock { list } }
    }
}
