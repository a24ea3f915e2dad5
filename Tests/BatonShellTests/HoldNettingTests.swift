import Baton
import BatonStore
import Testing

@testable import BatonCoordinator

@Suite("PendingBatch: hold changes netted per row")
struct HoldNettingTests {
    static func entry(_ seq: Int64, run: String = "r1", granted: Bool = false) -> AdmissionTable.Entry {
        AdmissionTable.Entry(seq: seq, runID: run, key: "n\(seq)", claims: [.mutex("db")], cache: nil, granted: granted)
    }

    @Test func insertedThenGrantedIsInsertedGranted() {
        var batch = PendingBatch()
        batch.hold(.requested(Self.entry(1)))
        batch.hold(.granted(Self.entry(1, granted: true)))
        #expect(batch.holdChanges == [.insert(Self.entry(1, granted: true))])
        #expect(batch.hasDecisions)
    }

    @Test func insertedThenReleasedIsNotWritten() {
        var batch = PendingBatch()
        batch.hold(.requested(Self.entry(1)))
        batch.hold(.granted(Self.entry(1, granted: true)))
        batch.hold(.released(Self.entry(1, granted: true)))
        #expect(batch.holdChanges.isEmpty)
    }

    @Test func storedRowsAreGrantedOrDeletedOnce() {
        var batch = PendingBatch()
        batch.hold(.granted(Self.entry(3, granted: true)))
        batch.hold(.released(Self.entry(2, granted: true)))
        batch.hold(.released(Self.entry(3, granted: true)))
        #expect(batch.holdChanges == [.delete(seq: 2), .delete(seq: 3)])
    }

    @Test func splitGivesEachRunItsRowsAndDropForgetsThem() {
        var batch = PendingBatch()
        batch.record("r1", [.release(key: "n1")])
        batch.record("r2", [.release(key: "n2")])
        batch.hold(.released(Self.entry(1, run: "r1")))
        batch.hold(.granted(Self.entry(2, run: "r2", granted: true)))
        batch.hold(.released(Self.entry(9, run: "gone")))
        let parts = batch.split()
        #expect(parts.map(\.holdChanges) == [[.delete(seq: 9)], [.delete(seq: 1)], [.grant(seq: 2)]])
        batch.drop("r2")
        #expect(batch.holdChanges == [.delete(seq: 1), .delete(seq: 9)])
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
