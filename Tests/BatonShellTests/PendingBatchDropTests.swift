import Baton
import BatonStore
import Testing

@testable import BatonCoordinator

@Suite("PendingBatch: what a coordinator decided for runs of a partition it lost is dropped")
struct PendingBatchDropTests {
    @Test func theLostRunsCommandsHoldsAndRequestsGoTheOthersStay() {
        var batch = PendingBatch()
        batch.record("lost", [.runStatus(.running, error: nil)])
        batch.record("kept", [.runStatus(.running, error: nil)])
        batch.witness("lost-too")
        batch.hold(.insert(runID: "lost", request: AdmissionRequest(key: "n", claims: [.mutex("db")])))
        batch.hold(.release(runID: "kept", key: "n"))
        batch.handled(1, runID: "lost")
        batch.handled(2, runID: "kept")
        batch.drop { $0.hasPrefix("lost") }
        #expect(batch.runs.map(\.runID) == ["kept"])
        #expect(batch.holdChanges == [.release(runID: "kept", key: "n")])
        #expect(batch.handledRequests == [2], "the lost run's request stays open for its new owner")
    }

    /// A release stays known after the node asks again in the same batch (a pause, then its resume):
    /// a grant read from the store for that node is then stale (`GrantDecision.stale`).
    @Test func aReleaseFollowedByANewRequestStillReleases() {
        var batch = PendingBatch()
        #expect(!batch.releases(runID: "r", key: "n"))
        batch.hold(.release(runID: "r", key: "n"))
        batch.hold(.insert(runID: "r", request: AdmissionRequest(key: "n", claims: [.mutex("db")])))
        #expect(batch.releases(runID: "r", key: "n"))
        #expect(!batch.releases(runID: "r", key: "other"))
    }
}
