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
}
