import Foundation
import Testing

@testable import BatonWorker

@Suite("LostQueues: a worker's task queues deleted under it")
struct LostQueuesTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func aCancelledQueueIsLookedForAgainWithBackOff() {
        var lost = LostQueues()
        let first = lost.cancelled("q", now: Self.t0)
        let again = lost.cancelled("q", now: Self.t0)
        #expect(first && !again)  // told once: logged once
        #expect(lost.due(now: Self.t0).isEmpty)
        #expect(lost.due(now: Self.t0.addingTimeInterval(1)) == ["q"])
        var now = Self.t0.addingTimeInterval(1)
        var waits: [Double] = []
        for _ in 0..<7 {
            lost.stillMissing("q", now: now)
            var wait = 0.0
            while lost.due(now: now.addingTimeInterval(wait)).isEmpty { wait += 1 }
            waits.append(wait)
            now = now.addingTimeInterval(wait)
        }
        #expect(waits == [2, 4, 8, 16, 30, 30, 30])
        lost.resumed("q")
        #expect(lost.isEmpty)
    }

    @Test func aReconnectForgetsEveryLostQueue() {
        var lost = LostQueues()
        _ = lost.cancelled("a", now: Self.t0)
        _ = lost.cancelled("b", now: Self.t0)
        #expect(lost.names == ["a", "b"])
        lost.reset()
        #expect(lost.isEmpty)
        #expect(lost.due(now: Self.t0.addingTimeInterval(100)).isEmpty)
    }
}
