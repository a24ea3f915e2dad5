import Baton
import Testing

/// `RunTimeline` from nodes and events, with no services: every event kind the scheduler writes.
@Suite("Run timeline")
struct RunTimelineTests {
    static func e(
        _ node: String, _ kind: String, _ at: Double, _ attempt: Int? = nil, due: Double? = nil, timedOut: Bool = false
    )
        -> TimelineEvent
    {
        TimelineEvent(node: node, kind: kind, at: at, attempt: attempt, dueAt: due, timedOut: timedOut)
    }

    static func row(_ timeline: RunTimeline, _ key: String) -> TimelineRow { timeline.rows.first { $0.key == key }! }

    @Test func anAttemptIsQueuedStartedAndFinished() {
        let t = RunTimeline(
            nodes: [("a", "succeeded")],
            events: [
                Self.e("a", "queued", 100, 1), Self.e("a", "started", 100.5, 1), Self.e("a", "progress", 101, 1), Self.e("a", "succeeded", 102, 1),
            ],
            now: nil)
        #expect(t.start == 100 && t.end == 102 && t.duration == 2)
        let a = Self.row(t, "a")
        #expect(a.attempts == [TimelineAttempt(attempt: 1, queued: 100, started: 100.5, finished: 102, outcome: .succeeded)])
        #expect(a.waits.isEmpty && a.outcome == .succeeded && a.ended == 102 && a.first == 100)
    }

    @Test func retriesWaitInBackOffAndATimeoutIsItsOwnOutcome() {
        let t = RunTimeline(
            nodes: [("r", "succeeded")],
            events: [
                Self.e("r", "queued", 0, 1), Self.e("r", "started", 1, 1), Self.e("r", "retrying", 2, 1, due: 3),
                Self.e("r", "queued", 3, 2), Self.e("r", "started", 3.5, 2), Self.e("r", "timed_out", 5, 2),
                Self.e("r", "retrying", 5, 2, due: 6), Self.e("r", "queued", 6, 3), Self.e("r", "started", 6, 3),
                Self.e("r", "retrying", 7, 3, due: 8, timedOut: true), Self.e("r", "queued", 8, 4), Self.e("r", "started", 8, 4),
                Self.e("r", "succeeded", 9, 4),
            ], now: nil)
        let r = Self.row(t, "r")
        #expect(r.attempts.map(\.outcome) == [.failed, .timedOut, .timedOut, .succeeded])
        #expect(r.attempts.map(\.attempt) == [1, 2, 3, 4])
        #expect(
            r.waits == [
                TimelineWait(reason: "retry", attempt: 1, from: 2, to: 3, due: 3), TimelineWait(reason: "retry", attempt: 2, from: 5, to: 6, due: 6),
                TimelineWait(reason: "retry", attempt: 3, from: 7, to: 8, due: 8),
            ])
        #expect(r.outcome == .succeeded && r.ended == 9)
    }

    @Test func aFinalTimeoutOrAWorkerSideTimeoutEndsTheNode() {
        let t = RunTimeline(
            nodes: [("c", "failed"), ("w", "failed")],
            events: [
                Self.e("c", "queued", 0, 1), Self.e("c", "started", 0, 1), Self.e("c", "timed_out", 4, 1),
                Self.e("w", "queued", 0, 1), Self.e("w", "started", 0, 1), Self.e("w", "failed", 3, 1, timedOut: true),
            ], now: nil)
        #expect(Self.row(t, "c").outcome == .timedOut && Self.row(t, "c").attempts.last?.outcome == .timedOut)
        #expect(Self.row(t, "w").outcome == .timedOut && Self.row(t, "w").attempts.last?.finished == 3)
    }

    @Test func delaysAdmissionRatesAndSignalsAreWaitsWithTheirReason() {
        let t = RunTimeline(
            nodes: [("d", "succeeded"), ("m", "succeeded"), ("k", "succeeded"), ("s", "succeeded"), ("o", "failed"), ("x", "running")],
            events: [
                Self.e("d", "delay", 1, 0, due: 3), Self.e("d", "succeeded", 3, 0),
                Self.e("m", "awaiting_admission", 1, 0), Self.e("m", "admitted", 2, 1), Self.e("m", "queued", 2, 1),
                Self.e("m", "started", 2.5, 1), Self.e("m", "succeeded", 4, 1),
                Self.e("k", "awaiting_rate", 1, 0), Self.e("k", "queued", 5, 1), Self.e("k", "started", 5, 1), Self.e("k", "succeeded", 6, 1),
                Self.e("s", "awaiting_signal", 2, 0), Self.e("s", "succeeded", 7, 0),
                Self.e("o", "awaiting_signal", 2, 0), Self.e("o", "timed_out", 8, 0),
                Self.e("x", "awaiting_something_new", 3, 0), Self.e("x", "queued", 9, 1), Self.e("x", "started", 9.5, 1),
            ], now: 10)
        #expect(Self.row(t, "d").waits == [TimelineWait(reason: "delay", attempt: 0, from: 1, to: 3, due: 3)])
        #expect(Self.row(t, "d").attempts.isEmpty && Self.row(t, "d").outcome == .succeeded)
        #expect(Self.row(t, "m").waits == [TimelineWait(reason: "admission", attempt: 0, from: 1, to: 2)])
        #expect(Self.row(t, "m").attempts.first?.queued == 2)
        #expect(Self.row(t, "k").waits == [TimelineWait(reason: "rate", attempt: 0, from: 1, to: 5)])
        #expect(Self.row(t, "s").waits == [TimelineWait(reason: "signal", attempt: 0, from: 2, to: 7)] && Self.row(t, "s").outcome == .succeeded)
        #expect(Self.row(t, "o").waits.first?.to == 8 && Self.row(t, "o").outcome == .timedOut)
        let x = Self.row(t, "x")
        #expect(x.waits == [TimelineWait(reason: "something_new", attempt: 0, from: 3, to: 9)])
        #expect(x.attempts == [TimelineAttempt(attempt: 1, queued: 9, started: 9.5)] && x.outcome == nil)
        #expect(t.end == 10, "a run that goes on ends now")
    }

    @Test func aWaitOfAKindNotKnownYetWithADueTimeLastsUntilTheNextChange() {
        let t = RunTimeline(
            nodes: [("n", "succeeded")],
            events: [Self.e("n", "snoozing", 0, 0, due: 2), Self.e("n", "log", 1, 0), Self.e("n", "queued", 2, 1), Self.e("n", "succeeded", 3, 1)],
            now: nil)
        #expect(Self.row(t, "n").waits == [TimelineWait(reason: "snoozing", attempt: 0, from: 0, to: 2, due: 2)])
        #expect(RunTimeline(nodes: [("n", "pending")], events: [Self.e("n", "mystery", 0, 0)], now: nil).rows[0].waits.isEmpty)
    }

    @Test func conditionsRepeatsLostWorkersDeadLettersAndResets() {
        let t = RunTimeline(
            nodes: [("c", "succeeded"), ("no", "skipped"), ("rep", "succeeded"), ("l", "failed")],
            events: [
                Self.e("c", "condition_queued", 0, 1), Self.e("c", "condition_started", 0.5, 1), Self.e("c", "queued", 1, 1),
                Self.e("c", "started", 1.5, 1), Self.e("c", "succeeded", 2, 1),
                Self.e("no", "condition_queued", 0, 1), Self.e("no", "condition_started", 0.2, 1), Self.e("no", "skipped", 0.4, 1),
                Self.e("rep", "queued", 0, 1), Self.e("rep", "started", 0, 1), Self.e("rep", "repeating", 1, 1, due: 2),
                Self.e("rep", "queued", 2, 2), Self.e("rep", "started", 2, 2), Self.e("rep", "succeeded", 3, 2),
                Self.e("l", "queued", 0, 1), Self.e("l", "started", 0, 1), Self.e("l", "lease_expired", 1, 1), Self.e("l", "queued", 1, 2),
                Self.e("l", "dead_lettered_unstarted", 2, 2), Self.e("l", "queued", 2, 3), Self.e("l", "redelivered", 2.5, 3),
                Self.e("l", "started", 3, 3), Self.e("l", "dead_lettered", 4, 3), Self.e("l", "reset", 5, 3),
                Self.e("l", "queued", 6, 4), Self.e("l", "started", 6, 4), Self.e("l", "failed", 7, 4),
            ], now: nil)
        let c = Self.row(t, "c")
        #expect(c.attempts.map(\.condition) == [true, false] && c.attempts.map(\.outcome) == [.succeeded, .succeeded])
        #expect(c.attempts[0].finished == 1 && c.attempts[1].queued == 1)
        #expect(
            Self.row(t, "no").attempts == [TimelineAttempt(attempt: 1, condition: true, queued: 0, started: 0.2, finished: 0.4, outcome: .skipped)])
        let rep = Self.row(t, "rep")
        #expect(rep.attempts.map(\.outcome) == [.succeeded, .succeeded] && rep.waits.map(\.reason) == ["repeat"])
        let l = Self.row(t, "l")
        #expect(l.attempts.map(\.outcome) == [.lost, .deadLettered, .deadLettered, .failed])
        #expect(l.attempts[1].started == nil && l.attempts[2].started == 3)
        #expect(l.outcome == .failed && l.ended == 7)
    }

    @Test func nodesThatNeverRanAreMarkedWhereTheyEndedAndOrderFollowsFirstActivity() {
        let t = RunTimeline(
            nodes: [("late", "succeeded"), ("never", "pending"), ("early", "failed"), ("skip", "cancelled")],
            events: [
                Self.e("late", "queued", 5, 1), Self.e("late", "succeeded", 6, 1), Self.e("early", "queued", 1, 1),
                Self.e("early", "failed", 2, 1), Self.e("skip", "cancelled", 2, 0), Self.e("ghost", "queued", 0, 1),
            ], now: nil)
        #expect(t.rows.map(\.key) == ["early", "skip", "late", "never"])
        #expect(Self.row(t, "skip").attempts.isEmpty && Self.row(t, "skip").outcome == .cancelled && Self.row(t, "skip").ended == 2)
        #expect(Self.row(t, "late").attempts.first?.started == nil && Self.row(t, "late").attempts.first?.finished == 6)
        #expect(t.start == 1, "events of nodes the run does not have are left out")
    }

    @Test func aRunThatEndedClosesWhatIsLeftOpenAtItsLastEvent() {
        let events = [Self.e("a", "queued", 0, 1), Self.e("a", "started", 1, 1), Self.e("b", "delay", 0, 0, due: 9), Self.e("c", "succeeded", 4, 1)]
        let ended = RunTimeline(nodes: [("a", "running"), ("b", "waiting"), ("c", "succeeded")], events: events, now: nil)
        #expect(Self.row(ended, "a").attempts.first?.finished == 4 && Self.row(ended, "b").waits.first?.to == 4)
        let going = RunTimeline(nodes: [("a", "running"), ("b", "waiting"), ("c", "succeeded")], events: events, now: 6)
        #expect(Self.row(going, "a").attempts.first?.finished == nil && going.end == 6)
        let empty = RunTimeline(nodes: [("a", "pending")], events: [], now: 50)
        #expect(empty.start == 0 && empty.end == 0 && empty.rows.count == 1)
    }

    @Test func theJSONGivesMillisecondsFromTheStart() {
        let t = RunTimeline(
            nodes: [("a", "succeeded"), ("b", "running")],
            events: [
                Self.e("a", "queued", 100, 1), Self.e("a", "started", 100.25, 1), Self.e("a", "retrying", 101, 1, due: 101.5),
                Self.e("a", "queued", 101.5, 2), Self.e("a", "started", 101.5, 2), Self.e("a", "succeeded", 102, 2),
                Self.e("b", "queued", 101, 1),
            ], now: 103)
        let json = t.json
        #expect(json["start_ms"] == 100_000 && json["duration_ms"] == 3000)
        let a = json["nodes"]?.arrayValue?.first
        #expect(a?["key"] == "a" && a?["status"] == "succeeded" && a?["first"] == 0 && a?["outcome"] == "succeeded" && a?["ended"] == 2000)
        #expect(
            a?["attempts"]?.arrayValue?.first
                == ["attempt": 1, "phase": "run", "queued": 0, "started": 250, "finished": 1000, "outcome": "failed"])
        #expect(a?["waits"] == [["reason": "retry", "attempt": 1, "from": 1000, "to": 1500, "due": 1500]])
        let b = json["nodes"]?.arrayValue?.last
        #expect(b?["attempts"] == [["attempt": 1, "phase": "run", "queued": 1000, "started": .null, "finished": .null, "outcome": .null]])
        #expect(b?["outcome"] == .null && b?["ended"] == .null)
        let document = t.document(run: "r-1", status: .running)
        #expect(document.objectValue?.keys == ["run", "status", "start_ms", "duration_ms", "nodes"] && document["status"] == "running")
    }
}
