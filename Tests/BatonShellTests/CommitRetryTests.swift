import BatonPostgres
import Testing

@testable import BatonCoordinator

/// How the coordinator goes on after a commit failed (`CommitRetry`), with no services.
struct CommitRetryTests {
    static func pg(_ code: String) -> PostgresError { PostgresError(kind: .query, message: "injected", sqlState: code) }

    @Test func aPassingErrorIsRetriedWithinAThirdOfTheLeaseThenTheBatchIsSplit() {
        var retry = CommitRetry(partitionLease: 0.06, random: { 0.999 })  // back-offs of 0.05 s and 0.1 s, capped at 0.02 s
        for _ in 1..<FailureDecision.retriesBeforeSplit {
            guard case let .retry(delay, reason) = retry.failed(Self.pg("40001"), runs: ["a", "b"]) else {
                Issue.record("not retried")
                return
            }
            #expect(delay > 0 && delay <= 0.02 + 1e-9 && reason == "serialization")
        }
        let answer1 = retry.failed(Self.pg("40P01"), runs: ["a", "b"])
        #expect(answer1 == .split(reason: "deadlock"), "never sent again unchanged for ever")
        #expect(retry.failures == FailureDecision.retriesBeforeSplit)
    }

    @Test func oneRunsBatchIsRetriedNotSplit() {
        var retry = CommitRetry(partitionLease: 30, random: { 0 })
        for _ in 0..<5 {
            guard case .retry = retry.failed(Self.pg("40001"), runs: ["a"]) else {
                Issue.record("one run's batch cannot be split")
                return
            }
        }
    }

    @Test func dataSplitsSeveralRunsAndFailsOneAlone() {
        var retry = CommitRetry(partitionLease: 30, random: { 0 })
        let answer2 = retry.failed(Self.pg("22021"), runs: ["a", "b"])
        #expect(answer2 == .split(reason: "data"))
        let answer3 = retry.failed(Self.pg("54000"), runs: ["a", "b"])
        #expect(answer3 == .split(reason: "size"))
        guard case .decide(.failRun("a", _)) = retry.failed(Self.pg("23505"), runs: ["a"]) else {
            Issue.record("the run is not failed alone")
            return
        }
        let answer4 = retry.failed(Self.pg("22021"), runs: [])
        #expect(answer4 == .decide(.dropBookkeeping))
    }

    @Test func aLostConnectionReconnectsAndAnUnknownErrorStops() {
        var retry = CommitRetry(partitionLease: 30, random: { 0 })
        let answer5 = retry.failed(Self.pg("08006"), runs: ["a"])
        #expect(answer5 == .reconnect(reason: "connection"))
        guard case .decide(.stop) = retry.failed(Self.pg("42P01"), runs: ["a"]) else {
            Issue.record("not stopped")
            return
        }
    }

    @Test func writingARunsFailureIsKeptForLaterUnlessTheConnectionIsGoneOrRefusedForGood() {
        #expect(FailureDecision.recordingFailure(Self.pg("40001")) == .retryLater)
        #expect(FailureDecision.recordingFailure(Self.pg("22021")) == .retryLater)
        #expect(FailureDecision.recordingFailure(Self.pg("08006")) == .reconnect(cap: FailureDecision.reconnectCap))
        guard case .stop = FailureDecision.recordingFailure(Self.pg("42P01")) else {
            Issue.record("not stopped")
            return
        }
        #expect(FailureDecision.passes(Self.pg("40P01")) && !FailureDecision.passes(Self.pg("22021")))
    }
}
