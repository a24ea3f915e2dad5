import Baton
import Foundation
import Testing

@Suite("TimerQueue: timers in a heap")
struct TimerQueueTests {
    let t0 = Date(timeIntervalSince1970: 1_000_000)

    @Test func theEarliestIsTheEarliestArmedTimeAfterAnyChanges() {
        var q = TimerQueue<String>()
        #expect(q.earliest == nil)
        q.set("a", at: t0.addingTimeInterval(5))
        q.set("b", at: t0.addingTimeInterval(2))
        q.set("c", at: t0.addingTimeInterval(9))
        #expect(q.earliest == t0.addingTimeInterval(2))
        q.set("b", at: t0.addingTimeInterval(7))  // moved later: its old entry is stale
        #expect(q.earliest == t0.addingTimeInterval(5))
        q.set("a", at: nil)
        #expect(q.earliest == t0.addingTimeInterval(7))
        #expect(q.count == 2)
    }

    @Test func takeDueReturnsWhatIsDueEarliestFirstAndDisarmsIt() {
        var q = TimerQueue<String>()
        q.set("late", at: t0.addingTimeInterval(10))
        q.set("x", at: t0.addingTimeInterval(3))
        q.set("y", at: t0.addingTimeInterval(1))
        q.set("x", at: t0.addingTimeInterval(2))
        #expect(q.takeDue(at: t0.addingTimeInterval(5)) == ["y", "x"])
        #expect(!q.isArmed("x") && q.isArmed("late"))
        #expect(q.earliest == t0.addingTimeInterval(10))
        #expect(q.takeDue(at: t0.addingTimeInterval(5)).isEmpty)
    }

    /// Against a plain dictionary of times: random arming, moving and disarming never disagree.
    @Test func agreesWithAScanOverRandomChanges() {
        var seed: UInt64 = 42
        func next() -> UInt64 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return seed >> 33
        }
        var q = TimerQueue<Int>()
        var truth: [Int: Date] = [:]
        for step in 0..<5_000 {
            let key = Int(next() % 50)
            let roll = next() % 10
            if roll < 2 {
                q.set(key, at: nil)
                truth[key] = nil
            } else if roll < 3 {
                let now = t0.addingTimeInterval(Double(next() % 1_000))
                let due = q.takeDue(at: now)
                let expected = truth.filter { $0.value <= now }
                #expect(Set(due) == Set(expected.keys), "step \(step)")
                for key in due { truth[key] = nil }
            } else {
                let at = t0.addingTimeInterval(Double(next() % 1_000))
                q.set(key, at: at)
                truth[key] = at
            }
            #expect(q.earliest == truth.values.min(), "step \(step)")
        }
    }
}
