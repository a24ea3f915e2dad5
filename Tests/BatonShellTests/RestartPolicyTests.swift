import BatonCommandLine
import Testing

@Suite("RestartPolicy: when a supervised worker process comes back")
struct RestartPolicyTests {
    @Test func aProcessThatKeepsDyingAtOnceWaitsLongerEachTimeUpToTheMaximum() {
        var policy = RestartPolicy()
        let delays = (0..<10).map { _ in policy.ended(slot: 0, after: 0.2) }
        #expect(delays.prefix(4) == [0.5, 1, 2, 4])
        #expect(delays.last == 30, "capped: no tight loop, no endless wait")
        #expect(delays == delays.sorted())
    }

    @Test func aProcessThatRanForAWhileComesBackAtOnceAndSlotsAreCountedApart() {
        var policy = RestartPolicy()
        _ = policy.ended(slot: 0, after: 1)
        _ = policy.ended(slot: 0, after: 1)
        #expect(policy.ended(slot: 1, after: 1) == 0.5, "another slot's failures do not count")
        #expect(policy.ended(slot: 0, after: 60) == 0.5, "a healthy run resets the back-off")
        #expect(policy.ended(slot: 0, after: 1) == 0.5)
        #expect(policy.ended(slot: 0, after: 1) == 1)
    }
}
