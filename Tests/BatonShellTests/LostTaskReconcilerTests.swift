import Foundation
import Testing

@testable import BatonCoordinator

@Suite("LostTaskReconciler: which queued nodes' tasks the broker lost")
struct LostTaskReconcilerTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    static let queue = QueueName(pool: "default", procedure: "baton.sleep")
    static func attempt(_ key: String, _ n: Int = 1) -> LostTaskReconciler.Attempt { .init(runID: "r", key: key, attempt: n) }

    /// A reconciler watching `count` tasks of `queue` published at t0, a second apart.
    static func watching(_ count: Int) -> LostTaskReconciler {
        var r = LostTaskReconciler()
        for i in 0..<count { r.published(attempt("n\(i)"), queue: queue, at: t0.addingTimeInterval(Double(i))) }
        return r
    }

    @Test func nothingIsLookedAtBeforeTheGrace() {
        var r = Self.watching(3)
        let now = Self.t0.addingTimeInterval(5)
        #expect(r.isDue(now: now))
        let got1: [QueueName] = r.queuesToCheck(now: now) { _ in true }
        #expect(got1.isEmpty)
        #expect(!r.isDue(now: now.addingTimeInterval(1)))  // the next pass waits for the interval
    }

    @Test func anEmptyQueueMeansEveryOldWaitingTaskWasLost() {
        var r = Self.watching(3)
        let now = Self.t0.addingTimeInterval(11.5)  // n0 and n1 waited past the grace, n2 not yet
        let got2 = r.queuesToCheck(now: now) { _ in true }
        #expect(got2 == [Self.queue])
        let lost = r.decide(queue: Self.queue, depth: 0, now: now, budget: 100)
        #expect(lost.map(\.attempt) == [Self.attempt("n0"), Self.attempt("n1")])
        #expect(lost.allSatisfy { $0.reason == .queueEmpty })
        // Backed off: not again at the next pass, even if the queue is still empty.
        let later = now.addingTimeInterval(5)
        _ = r.queuesToCheck(now: later) { _ in true }
        let got3 = r.decide(queue: Self.queue, depth: 0, now: later, budget: 100)
        #expect(got3.map(\.attempt) == [Self.attempt("n2")])
        // After the back-off (10 s, then 20 s) they go again.
        let after = now.addingTimeInterval(10)
        _ = r.queuesToCheck(now: after) { _ in true }
        let got4 = r.decide(queue: Self.queue, depth: 0, now: after, budget: 100)
        #expect(got4.map(\.attempt) == [Self.attempt("n0"), Self.attempt("n1")])
    }

    @Test func aQueueThatHoldsEnoughLosesNothing() {
        var r = Self.watching(5)
        let now = Self.t0.addingTimeInterval(1_000)
        _ = r.queuesToCheck(now: now) { _ in true }
        let got5 = r.decide(queue: Self.queue, depth: 5, now: now, budget: 100)
        #expect(got5.isEmpty)
        let got6 = r.decide(queue: Self.queue, depth: 9, now: now, budget: 100)
        #expect(got6.isEmpty)
    }

    @Test func aShortQueueLosesItsOldestOnlyAfterALongWait() {
        var r = Self.watching(5)
        // Waiting 100 s, the queue holds 3 of 5: a backlog in workers' prefetch looks the same, so nothing yet.
        var now = Self.t0.addingTimeInterval(100)
        _ = r.queuesToCheck(now: now) { _ in true }
        let got7 = r.decide(queue: Self.queue, depth: 3, now: now, budget: 100)
        #expect(got7.isEmpty)
        // Past the long wait: the 2 oldest (a purge, then newer tasks came) go again.
        now = Self.t0.addingTimeInterval(400)
        _ = r.queuesToCheck(now: now) { _ in true }
        let lost = r.decide(queue: Self.queue, depth: 3, now: now, budget: 100)
        #expect(lost.map(\.attempt) == [Self.attempt("n0"), Self.attempt("n1")])
        #expect(lost.allSatisfy { $0.reason == .waitedLong })
    }

    @Test func aReturnedTaskGoesAgainAtOnceAndItsQueueIsLookedAt() {
        var r = Self.watching(2)
        let now = Self.t0.addingTimeInterval(2)  // before the grace
        r.returned(Self.attempt("n1"), queue: Self.queue, at: now)
        #expect(r.isDue(now: now))
        let got8 = r.queuesToCheck(now: now) { _ in true }
        #expect(got8 == [Self.queue])
        // The queue was lost: n1 (returned) goes; n0 waited less than the grace, so it waits.
        let lost = r.decide(queue: Self.queue, depth: 0, now: now, budget: 100)
        #expect(lost == [.init(attempt: Self.attempt("n1"), queue: Self.queue, reason: .returned)])
        // Returned again at once: it backs off (10 s) before it goes again, and the queue is looked at then.
        r.returned(Self.attempt("n1"), queue: Self.queue, at: now)
        _ = r.queuesToCheck(now: now) { _ in true }
        let got9 = r.decide(queue: Self.queue, depth: 0, now: now, budget: 100)
        #expect(got9.isEmpty)
        let later = now.addingTimeInterval(10)
        #expect(r.isDue(now: later))
        _ = r.queuesToCheck(now: later) { _ in true }
        let got10 = r.decide(queue: Self.queue, depth: 0, now: later, budget: 100)
        #expect(got10.map(\.reason).contains(.returned))
    }

    @Test func nodesNoLongerQueuedAreForgotten() {
        var r = Self.watching(3)
        let now = Self.t0.addingTimeInterval(20)
        let queues = r.queuesToCheck(now: now) { $0.key != "n1" }  // n1 started
        #expect(queues == [Self.queue])
        #expect(r.count == 2)
        let got11 = r.decide(queue: Self.queue, depth: 0, now: now, budget: 100)
        #expect(got11.map(\.attempt) == [Self.attempt("n0"), Self.attempt("n2")])
    }

    @Test func onePassRepublishesAtMostItsBudget() {
        var r = Self.watching(50)
        let now = Self.t0.addingTimeInterval(100)
        _ = r.queuesToCheck(now: now) { _ in true }
        let lost = r.decide(queue: Self.queue, depth: 0, now: now, budget: 20)
        #expect(lost.count == 20)
        #expect(lost.first?.attempt == Self.attempt("n0"))  // oldest first
        _ = r.queuesToCheck(now: now.addingTimeInterval(5)) { _ in true }
        let got12 = r.decide(queue: Self.queue, depth: 0, now: now.addingTimeInterval(5), budget: 100)
        #expect(got12.count == 30)
    }

    /// Tasks a worker took and keeps waiting for a slot are not in the queue's count: while its
    /// heartbeats list them they are not lost, however empty the queue; once it stops listing them
    /// (three of its intervals on), they are.
    @Test func attemptsAWorkerHoldsAreNotLostWhileItsHeartbeatsSaySo() {
        var r = Self.watching(4)
        r.held([Self.attempt("n0"), Self.attempt("n1"), Self.attempt("other")], interval: 5, at: Self.t0.addingTimeInterval(4))
        let now = Self.t0.addingTimeInterval(15)
        #expect(r.queuesToCheck(now: now) { _ in true } == [Self.queue])
        let lost = r.decide(queue: Self.queue, depth: 0, now: now, budget: 100)
        #expect(lost.map(\.attempt) == [Self.attempt("n2"), Self.attempt("n3")], "n0 and n1 are held")
        // No heartbeat lists n0 after t0+4: it is lost after t0+19; n1 is listed again and is not.
        r.held([Self.attempt("n1")], interval: 5, at: Self.t0.addingTimeInterval(14))
        let later = Self.t0.addingTimeInterval(20)
        _ = r.queuesToCheck(now: later) { _ in true }
        #expect(r.decide(queue: Self.queue, depth: 0, now: later, budget: 100).map(\.attempt) == [Self.attempt("n0")])
    }

    /// A worker whose heartbeats come every 30 s could not have said it holds a task taken 10 s ago:
    /// tasks wait longer than two of its intervals before they may be taken for lost.
    @Test func theWaitCoversTwoHeartbeatsOfTheSlowestWorker() {
        var r = Self.watching(1)
        r.held([], interval: 30, at: Self.t0)
        #expect(r.queuesToCheck(now: Self.t0.addingTimeInterval(20)) { _ in true }.isEmpty)
        #expect(r.queuesToCheck(now: Self.t0.addingTimeInterval(62)) { _ in true } == [Self.queue])
    }
}
