import Baton
import Foundation
import Testing

/// Reports bound to their attempt: each queued attempt gets a token, the task carries it, and a
/// report of the current attempt without it is refused (`ReportCheck`) before the scheduler sees it.
@Suite("Attempt tokens")
struct AttemptTokenTests {
    static let text = #"{"nodes": {"a": {"procedure": "p", "retry": {"attempts": 3}}, "b": {"procedure": "p", "after": ["a"]}}}"#

    /// A scheduler that draws tokens 1, 2, 3... as a coordinator draws random ones.
    struct Tokened {
        var state: RunState
        var drawn: UInt64 = 0
        init() throws { state = RunState(runID: "run-t", graph: try graph(AttemptTokenTests.text)) }
        mutating func send(_ event: SchedulerEvent) -> [SchedulerCommand] {
            var drawn = self.drawn
            defer { self.drawn = drawn }
            return state.handle(
                event, at: Date(timeIntervalSince1970: 1_000), random: { 0.5 },
                tokens: {
                    drawn += 1
                    return AttemptToken(high: 7, low: drawn)
                })
        }
    }

    @Test func aTokenIsTextOf32HexDigitsAndReadBack() {
        let token = AttemptToken(high: 0x0123_4567_89AB_CDEF, low: 0xFEDC_BA98_7654_3210)
        #expect(token.text == "0123456789abcdeffedcba9876543210")
        #expect(AttemptToken(text: token.text) == token)
        #expect(AttemptToken(text: "0123456789ABCDEFFEDCBA9876543210") == token)
        for bad in ["", "0123", "0123456789abcdeffedcba98765432100", "0123456789abcdeffedcba987654321g", " 123456789abcdeffedcba9876543210"] {
            #expect(AttemptToken(text: bad) == nil, "\(bad)")
        }
        #expect(AttemptToken.random() != AttemptToken.random(), "128 random bits")
    }

    @Test func eachQueuedAttemptGetsAFreshTokenThatItsTaskCarriesAndItsChangeStores() throws {
        var run = try Tokened()
        let first = run.send(.start)
        let task = try #require(first.dispatches.first)
        #expect(task.attemptToken == AttemptToken(high: 7, low: 1).text)
        #expect(first.nodeChanges.first { $0.key == "a" }?.attemptToken == AttemptToken(high: 7, low: 1))
        #expect(run.state.nodes["a"]?.attemptToken == AttemptToken(high: 7, low: 1))
        // The retry is a new attempt with a new token.
        let retried = run.send(.result(NodeResult(key: "a", attempt: 1, outcome: .failed(message: "x", permanent: false))))
        #expect(retried.dispatches.isEmpty, "waits for its back-off")
        let again = run.state.handle(
            .tick, at: Date(timeIntervalSince1970: 100_000), random: { 0.5 }, tokens: { AttemptToken(high: 7, low: 9) })
        #expect(again.dispatches.map(\.attemptToken) == [AttemptToken(high: 7, low: 9).text])
        #expect(run.state.nodes["a"]?.attemptToken == AttemptToken(high: 7, low: 9))
    }

    @Test func aRecoveredQueuedAttemptGoesOutAgainWithTheTokenItWasStoredWith() throws {
        let stored = NodeState(status: .queued, attempt: 2, input: [:])
        var withToken = stored
        withToken.attemptToken = AttemptToken(high: 5, low: 5)
        var state = RunState(runID: "run-t", graph: try graph(Self.text), status: .running, nodes: ["a": withToken])
        let resumed = state.handle(.start, at: Date(), random: { 0.5 }, tokens: { AttemptToken(high: 9, low: 9) })
        #expect(resumed.dispatches.map(\.attemptToken) == [AttemptToken(high: 5, low: 5).text], "the same attempt, the same token")
    }

    @Test func aReportOfTheCurrentAttemptNeedsItsToken() throws {
        var run = try Tokened()
        _ = run.send(.start)
        let token = AttemptToken(high: 7, low: 1).text
        func report(_ token: String?, attempt: Int = 1) -> ReportMessage {
            var m = ReportMessage.started(runID: "run-t", key: "a", attempt: attempt, worker: "w", at: Date())
            m.attemptToken = token
            return m
        }
        let check = ReportCheck()
        #expect(check.refusal(of: report(token), in: run.state) == nil)
        #expect(check.refusal(of: report(token.uppercased()), in: run.state) == nil)
        #expect(check.refusal(of: report(nil), in: run.state) == .missingToken)
        #expect(check.refusal(of: report(AttemptToken(high: 7, low: 2).text), in: run.state) == .wrongToken)
        #expect(check.refusal(of: report("not a token"), in: run.state) == .wrongToken)
        // Another attempt's report goes on: the scheduler ignores it as stale, whatever it says.
        #expect(check.refusal(of: report(nil, attempt: 2), in: run.state) == nil)
        // The upgrade window: no token is accepted, a wrong one still is not.
        let lenient = ReportCheck(acceptUntokened: true)
        #expect(lenient.refusal(of: report(nil), in: run.state) == nil)
        #expect(lenient.refusal(of: report(AttemptToken(high: 1, low: 1).text), in: run.state) == .wrongToken)
    }

    @Test func anAttemptQueuedWithoutATokenAcceptsAnyReport() throws {
        var state = RunState(runID: "run-t", graph: try graph(Self.text))
        _ = state.handle(.start)  // no token source: the in-process engine, or a coordinator from before tokens
        #expect(state.nodes["a"]?.attemptToken == nil)
        let m = ReportMessage.started(runID: "run-t", key: "a", attempt: 1, worker: "w", at: Date())
        #expect(ReportCheck().refusal(of: m, in: state) == nil)
    }

    @Test func tokensGoOnTheWireInTasksAndEveryKindOfReport() throws {
        var task = TaskDispatch(runID: "r", key: "k", attempt: 1, procedure: "p", input: [:], pool: "default", priority: 0)
        #expect(!String(decoding: task.encoded(), as: UTF8.self).contains("token"), "absent when there is none")
        task.attemptToken = AttemptToken(high: 1, low: 2).text
        #expect(try TaskDispatch(decoding: task.encoded()).attemptToken == task.attemptToken)
        let result = AttemptResult<EncodedJSON>(key: "k", attempt: 1, outcome: .succeeded(EncodedJSON(JSON.int(1))), worker: "w")
        let reports: [ReportMessage] = [
            .started(runID: "r", key: "k", attempt: 1, worker: "w", at: Date()), .result(runID: "r", result),
            .progress(runID: "r", key: "k", attempt: 1, fraction: 0.5, message: nil), .log(runID: "r", key: "k", attempt: 1, message: "m"),
        ]
        for report in reports {
            #expect(try ReportMessage(decoding: report.encoded()).attemptToken == nil)
            #expect(try ReportMessage(decoding: report.echoing(task).encoded()).attemptToken == task.attemptToken, "\(report.kind)")
        }
    }
}
