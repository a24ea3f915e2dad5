import Baton
import BatonSeams
import Testing

@testable import BatonCoordinator

/// What the coordinator does with the store's notifications, behind its partition fence (`NotificationIntake`).
struct NotificationIntakeTests {
    let mine = "6f1c1b9e-2a4b-4c8e-9a51-0c6f2f6d8b11"
    /// A run of another partition than `mine`'s (its first 32 bits decide: 1 and 0x6f1c1b9e modulo 4).
    let theirs = "00000001-6c1a-4f7b-8e0b-9c2d4a6b8e10"
    static let count = 4

    /// A fence holding only `mine`'s partition.
    var fence: PartitionFence {
        PartitionFence(coordinator: "c1", count: Self.count, epochs: [RunPartition.of(mine, count: Self.count): 1])
    }

    @Test func onlyRunsBehindTheFenceAreStarted() {
        #expect(RunPartition.of(mine, count: Self.count) != RunPartition.of(theirs, count: Self.count))
        let work = NotificationIntake([.newRun(theirs), .newRun(mine), .grants], fence: fence)
        #expect(work == NotificationIntake(start: [mine], requests: false, grants: true))
        #expect(NotificationIntake.holds(mine, fence: fence) && !NotificationIntake.holds(theirs, fence: fence))
    }

    @Test func withoutAFenceEveryRunIsStartedAndRequestsAreTakenOnce() {
        let work = NotificationIntake([.newRun(theirs), .newRequest(runID: mine), .newRequest(runID: theirs), .newRun(mine)], fence: nil)
        #expect(work == NotificationIntake(start: [theirs, mine], requests: true, grants: false))
        #expect(NotificationIntake([], fence: nil) == NotificationIntake())
    }
}
