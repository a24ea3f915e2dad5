import Foundation
import Testing

@testable import BatonWorker

@Suite("LogThrottle: an attempt's log lines at a bounded rate, the dropped ones counted")
struct LogThrottleTests {
    @Test func aBurstGoesThroughThenTheRestAreDroppedAndCounted() {
        let throttle = LogThrottle(burst: 3, perSecond: 2)
        let start = Date(timeIntervalSince1970: 1_000)
        let first = (0..<10).map { _ in throttle.allow(at: start) }
        #expect(first.map(\.allowed) == [true, true, true] + Array(repeating: false, count: 7))
        // Half a second later one line is due again: it goes, with the count of the seven dropped before it.
        let next = throttle.allow(at: start.addingTimeInterval(0.5))
        #expect(next.allowed && next.droppedBefore == 7)
        #expect(throttle.takeDropped() == 0, "the count went out with that line")
        #expect(!throttle.allow(at: start.addingTimeInterval(0.5)).allowed)
        #expect(throttle.takeDropped() == 1, "what was dropped at the end is reported when the attempt ends")
    }

    @Test func aSteadyRateWithinTheLimitLosesNothing() {
        let throttle = LogThrottle(burst: 2, perSecond: 10)
        let start = Date(timeIntervalSince1970: 1_000)
        for i in 0..<100 { #expect(throttle.allow(at: start.addingTimeInterval(Double(i) * 0.1)).allowed) }
        #expect(throttle.takeDropped() == 0)
        #expect(LogThrottle.droppedLine(1).hasPrefix("1 log line dropped"))
        #expect(LogThrottle.droppedLine(7).hasPrefix("7 log lines dropped"))
    }

    @Test func linesRefusedByAFullOutboxAreCountedWithTheRest() {
        let throttle = LogThrottle(burst: 5, perSecond: 1)
        let start = Date(timeIntervalSince1970: 1_000)
        #expect(throttle.allow(at: start).allowed)
        throttle.dropped(1)  // let through by the rate, refused by the outbox
        #expect(!LogThrottle(burst: 0, perSecond: 0).allow(at: start).allowed)
        let next = throttle.allow(at: start)
        #expect(next.allowed && next.droppedBefore == 1)
    }

    @Test func aLongLineIsCutAtACharacterBoundaryAndSaysHowMuch() {
        let short = String(repeating: "a", count: LogThrottle.maxLineBytes)
        #expect(LogThrottle.clipped(short) == short)
        for filler in ["a", "é", "日", "🎉"] {
            let line = String(repeating: filler, count: LogThrottle.maxLineBytes + 1)
            let cut = LogThrottle.clipped(line)
            #expect(cut.utf8.count <= LogThrottle.maxLineBytes, "\(filler)")
            let kept = try! #require(cut.components(separatedBy: " … (").first)
            #expect(kept.allSatisfy { String($0) == filler }, "no character is split: \(filler)")
            #expect(cut.hasSuffix(" … (\(line.utf8.count - kept.utf8.count) more bytes cut)") && kept.count < line.count, "\(filler)")
        }
    }
}
