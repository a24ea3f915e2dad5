import Baton
import Foundation
import Testing

@testable import BatonWorker

@Suite("TaskIntake: the worker consumer's decisions")
struct TaskIntakeTests {
    static func task(_ key: String = "n", attempt: Int = 1, run: String = "r") -> TaskDispatch {
        TaskDispatch(runID: run, key: key, attempt: attempt, procedure: "baton.echo", input: ["x": 1], pool: "default", priority: 0)
    }

    @Test func aFreshTaskRuns() {
        var intake = TaskIntake(deliveryLimit: 3)
        #expect(intake.delivery(body: Self.task().encoded(), redelivered: false, deliveries: nil) == .run(Self.task()))
    }

    @Test func aRedeliveredTaskIsCountedThenDeadLetteredPastTheLimit() {
        var intake = TaskIntake(deliveryLimit: 3)
        let body = Self.task().encoded()
        #expect(intake.delivery(body: body, redelivered: true, deliveries: nil) == .republish(Self.task(), deliveries: 2))
        #expect(intake.delivery(body: body, redelivered: true, deliveries: 2) == .republish(Self.task(), deliveries: 3))
        #expect(intake.delivery(body: body, redelivered: true, deliveries: 3) == .deadLetter(Self.task(), deliveries: 3))
    }

    @Test("a quorum queue's own count: a redelivery runs without republishing, and past the limit is dead-lettered")
    func theQueuesOwnCountNeedsNoRepublishing() {
        var intake = TaskIntake(deliveryLimit: 3)
        let body = Self.task().encoded()
        #expect(intake.delivery(body: body, redelivered: false, deliveries: 1, countedByBroker: true) == .run(Self.task()))
        #expect(intake.delivery(body: body, redelivered: true, deliveries: 2, countedByBroker: true) == .run(Self.task()))
        #expect(intake.delivery(body: body, redelivered: true, deliveries: 3, countedByBroker: true) == .run(Self.task()))
        #expect(intake.delivery(body: body, redelivered: true, deliveries: 4, countedByBroker: true) == .deadLetter(Self.task(), deliveries: 3))
    }

    @Test func anOlderAttemptThanOneSeenIsDropped() {
        var intake = TaskIntake(deliveryLimit: 5)
        #expect(intake.delivery(body: Self.task(attempt: 2).encoded(), redelivered: false, deliveries: nil) == .run(Self.task(attempt: 2)))
        #expect(
            intake.delivery(body: Self.task(attempt: 1).encoded(), redelivered: false, deliveries: nil)
                == .dropSuperseded(Self.task(attempt: 1)))
        // The same attempt again (a duplicate publish) still runs: its result is recorded once.
        #expect(intake.delivery(body: Self.task(attempt: 2).encoded(), redelivered: false, deliveries: nil) == .run(Self.task(attempt: 2)))
        // Other nodes and runs are not affected.
        #expect(intake.delivery(body: Self.task("m", attempt: 1).encoded(), redelivered: false, deliveries: nil) == .run(Self.task("m")))
        #expect(intake.delivery(body: Self.task(run: "s").encoded(), redelivered: false, deliveries: nil) == .run(Self.task(run: "s")))
    }

    @Test func anAttemptCancelledBeforeItArrivesIsReportedNotRun() {
        var intake = TaskIntake(deliveryLimit: 5)
        let running = AttemptID(runID: "r", key: "busy", attempt: 1)
        let toCancel = intake.control(
            ControlMessage(runID: "r", attempts: [TaskRef(key: "n", attempt: 1), TaskRef(key: "busy", attempt: 1)]),
            running: [running])
        #expect(toCancel == [running])
        #expect(intake.delivery(body: Self.task().encoded(), redelivered: false, deliveries: nil) == .reportCancelled(Self.task()))
        #expect(intake.delivery(body: Self.task().encoded(), redelivered: true, deliveries: 4) == .reportCancelled(Self.task()))
    }

    @Test func garbageAndOtherVersionsAreRejected() {
        var intake = TaskIntake(deliveryLimit: 5)
        guard case let .rejectMalformed(reason) = intake.delivery(body: Array("nope".utf8), redelivered: false, deliveries: nil) else {
            Issue.record("garbage was not rejected")
            return
        }
        #expect(reason.contains("task message"))
        var future = Self.task().encoded()
        future = Array(String(decoding: future, as: UTF8.self).replacingOccurrences(of: "\"v\":1", with: "\"v\":2").utf8)
        guard case let .rejectMalformed(why) = intake.delivery(body: future, redelivered: false, deliveries: nil) else {
            Issue.record("a version 2 task was not rejected")
            return
        }
        #expect(why.contains("version 2"))
    }

    @Test func drainingHandsBackNewTasksAndStopsWhenIdleOrAtTheDeadline() {
        var intake = TaskIntake(deliveryLimit: 5)
        let now = Date(timeIntervalSince1970: 1000)
        #expect(intake.drainStep(now: now, idle: true) == .keepGoing, "not draining: keep going even when idle")
        intake.startDraining(now: now, grace: 30)
        #expect(intake.delivery(body: Self.task().encoded(), redelivered: false, deliveries: nil) == .handBack)
        #expect(intake.drainStep(now: now.addingTimeInterval(10), idle: false) == .keepGoing)
        #expect(intake.drainStep(now: now.addingTimeInterval(10), idle: true) == .stop)
        #expect(intake.drainStep(now: now.addingTimeInterval(30), idle: false) == .abandon)
        intake.startDraining(now: now.addingTimeInterval(20), grace: 30)
        #expect(intake.drainStep(now: now.addingTimeInterval(30), idle: false) == .abandon, "a second signal does not extend the grace")
    }
}
