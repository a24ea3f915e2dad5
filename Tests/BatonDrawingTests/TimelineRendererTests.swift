import Baton
import BatonDrawing
import Testing

/// `TimelineRenderer`: the terminal drawing of a run's timeline, as a value.
@Suite("Timeline renderer")
struct TimelineRendererTests {
    static func e(_ node: String, _ kind: String, _ at: Double, _ attempt: Int? = nil, due: Double? = nil) -> TimelineEvent {
        TimelineEvent(node: node, kind: kind, at: at, attempt: attempt, dueAt: due)
    }

    /// 10 s: `fetch` fails once, backs off, succeeds; `wait` is a delay; `gate` waits for a mutex; `never` was skipped.
    static let timeline = RunTimeline(
        nodes: [("fetch", "succeeded"), ("wait", "succeeded"), ("gate", "succeeded"), ("never", "skipped")],
        events: [
            e("fetch", "queued", 0, 1), e("fetch", "started", 1, 1), e("fetch", "retrying", 3, 1, due: 5), e("fetch", "queued", 5, 2),
            e("fetch", "started", 5, 2), e("fetch", "succeeded", 10, 2), e("wait", "delay", 0, 0, due: 4), e("wait", "succeeded", 4, 0),
            e("gate", "awaiting_admission", 2, 0), e("gate", "admitted", 6, 1), e("gate", "queued", 6, 1), e("gate", "started", 7, 1),
            e("gate", "succeeded", 8, 1), e("never", "skipped", 10, 0),
        ], now: nil)

    @Test func barsAreScaledToTheWidthWithAnAxisAndALegend() {
        let lines = TimelineRenderer(width: 60).lines(Self.timeline)
        #expect(lines.allSatisfy { $0.count <= 60 }, "\(lines)")
        // Label 5 + space, bar 37 (60 - 5 - 16 - 2), space, summary (16 at most): 3.7 columns a second,
        // ticks at least 10 columns apart.
        #expect(lines[0] == "      0                 5s                10s", "\(lines[0])")
        #expect(lines[1] == "      +-----------------+-----------------+", "\(lines[1])")
        #expect(lines[2] == "fetch ---xxxxxxxxx......################### succeeded 10s ×2", "\(lines[2])")
        #expect(lines[3] == "wait  ..............#                       succeeded 4s", "\(lines[3])")
        #expect(lines[4] == "gate         ...............---#####        succeeded 6s", "\(lines[4])")
        #expect(lines[5] == "never                                     s skipped", "\(lines[5])")
        #expect(lines[6] == ". waiting  - queued  # succeeded  x failed  s skipped")
        #expect(lines.count == 7)
    }

    @Test func rowsAreCappedWithALineSayingHowManyMore() {
        let lines = TimelineRenderer(width: 60, maxRows: 2, moreHint: " (--all shows them)").lines(Self.timeline)
        #expect(lines.map { String($0.prefix(5)) }[2...3] == ["fetch", "wait "])
        #expect(lines[4] == "… 2 more nodes (--all shows them)")
    }

    @Test func colorsWrapRunsOfOneKindAndResetAtTheEnd() {
        let plain = TimelineRenderer(width: 60).lines(Self.timeline)
        let colored = TimelineRenderer(width: 60, color: true).lines(Self.timeline)
        #expect(colored[2].hasPrefix("fetch \u{1B}[33m---\u{1B}[0m\u{1B}[31mxxxxxxxxx\u{1B}[0m\u{1B}[2m......\u{1B}[0m\u{1B}[32m###"))
        #expect(colored[2].hasSuffix("\u{1B}[0m succeeded 10s ×2"))
        let stripped = colored[2].replacing(#/\u{1B}\[[0-9]+m/#, with: "")
        #expect(stripped == plain[2])
    }

    @Test func longKeysAreCutAndTinyAttemptsStillShow() {
        let t = RunTimeline(
            nodes: [("a-very-long-node-key-that-goes-on-and-on", "succeeded"), ("slow", "succeeded")],
            events: [
                Self.e("a-very-long-node-key-that-goes-on-and-on", "queued", 0, 1),
                Self.e("a-very-long-node-key-that-goes-on-and-on", "started", 0, 1),
                Self.e("a-very-long-node-key-that-goes-on-and-on", "succeeded", 0.001, 1), Self.e("slow", "queued", 0, 1),
                Self.e("slow", "started", 0, 1), Self.e("slow", "succeeded", 3600, 1),
            ], now: nil)
        let lines = TimelineRenderer(width: 80).lines(t)
        #expect(lines[2].hasPrefix("a-very-long-node-ke… #  "), "\(lines[2])")
        #expect(lines[0].hasPrefix("                     0 ") && lines[0].hasSuffix("1h"), "\(lines[0])")
        #expect(lines.allSatisfy { $0.count <= 80 })
    }

    @Test func aRunStillGoingDrawsRunningToNowAndAnEmptyRunSaysSo() {
        let t = RunTimeline(nodes: [("a", "running")], events: [Self.e("a", "queued", 0, 1), Self.e("a", "started", 1, 1)], now: 4)
        let lines = TimelineRenderer(width: 40).lines(t)
        #expect(lines[2] == "a    ------>>>>>>>>>>>>>>>>>>>>> running", "\(lines[2])")
        #expect(lines.last == ". waiting  - queued  > running")
        #expect(TimelineRenderer(width: 40).lines(RunTimeline(nodes: [], events: [], now: nil)) == ["(no nodes)"])
        // The legend wraps at the width.
        let failed = RunTimeline(
            nodes: [("a", "failed"), ("b", "cancelled")],
            events: [Self.e("a", "queued", 0, 1), Self.e("a", "started", 0, 1), Self.e("a", "failed", 1, 1), Self.e("b", "cancelled", 1, 0)],
            now: nil)
        #expect(Array(TimelineRenderer(width: 40).lines(failed).suffix(2)) == [". waiting  - queued  x failed", "/ cancelled"])
    }

    @Test func durationsReadAsPeopleWriteThem() {
        #expect(
            [0, 0.25, 1, 1.5, 12, 90, 120, 3600, 4500].map(TimelineRenderer.duration)
                == ["0", "250ms", "1s", "1.5s", "12s", "1m30s", "2m", "1h", "1h15m"])
    }
}
