import Baton
import BatonStore
import Testing

@testable import BatonCoordinator

@Suite("PendingBatch: hold changes netted per node")
struct HoldNettingTests {
    static func request(_ key: String, run: String = "r1") -> HoldChange {
        .insert(runID: run, request: AdmissionRequest(key: key, claims: [.mutex("db")]))
    }

    @Test func aRequestIsWrittenAndIsADecision() {
        var batch = PendingBatch()
        batch.hold(Self.request("n1"))
        #expect(batch.holdChanges == [Self.request("n1")])
        #expect(batch.hasDecisions)
    }

    @Test func requestedThenReleasedInOneBatchOnlyDeletesEarlierRows() {
        var batch = PendingBatch()
        batch.hold(Self.request("n1"))
        batch.hold(.release(runID: "r1", key: "n1"))
        #expect(batch.holdChanges == [.release(runID: "r1", key: "n1")])
        batch.hold(Self.request("n1"))
        batch.hold(.release(runID: "r1", key: "n1"))
        #expect(batch.holdChanges == [.release(runID: "r1", key: "n1")], "one release, however many times")
    }

    @Test func releasedThenRequestedAgainKeepsBoth() {
        var batch = PendingBatch()
        batch.hold(.release(runID: "r1", key: "n1"))
        batch.hold(Self.request("n1"))
        batch.hold(.told(runID: "r1", seq: 4))
        #expect(batch.holdChanges == [.release(runID: "r1", key: "n1"), Self.request("n1"), .told(runID: "r1", seq: 4)])
    }

    @Test func splitGivesEachRunItsRowsAndDropForgetsThem() {
        var batch = PendingBatch()
        batch.record("r1", [.release(key: "n1")])
        batch.record("r2", [.release(key: "n2")])
        batch.hold(.release(runID: "r1", key: "n1"))
        batch.hold(Self.request("n2", run: "r2"))
        batch.hold(.told(runID: "other", seq: 9))
        let parts = batch.split()
        #expect(
            parts.map(\.holdChanges) == [[.told(runID: "other", seq: 9)], [.release(runID: "r1", key: "n1")], [Self.request("n2", run: "r2")]])
        batch.drop("r2")
        #expect(batch.holdChanges == [.release(runID: "r1", key: "n1"), .told(runID: "other", seq: 9)])
    }
}

@Suite("Store.overlaps: mutex spans")
struct HoldSpanTests {
    @Test func touchingSpansDoNotOverlapNestedAndOpenOnesDo() {
        #expect(Store.overlaps([("a", 0, 1), ("b", 1, 2), ("c", 2, 3)]) == 0)
        #expect(Store.overlaps([("a", 0, 5), ("b", 1, 2), ("c", 3, 4)]) == 2)
        #expect(Store.overlaps([("a", 0, .infinity), ("b", 10, 11)]) == 1)
    }
}
