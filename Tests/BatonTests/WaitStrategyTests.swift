import Baton
import Foundation
import Testing

@Suite("Wait strategies")
struct WaitStrategyTests {
    /// The back-off after each failed attempt of a node with `retry` = `{"attempts": failures + 1, "wait": wait, ...}`,
    /// as the scheduler sets it; also checks that a tick just before each due time does nothing.
    static func backoffs(_ wait: String, failures: Int, jitter: Bool = false, random: Double = 0.5) throws -> [Double] {
        let text = #"{"nodes": {"a": {"procedure": "p", "retry": {"attempts": \#(failures + 1), "wait": \#(wait), "jitter": \#(jitter)}}}}"#
        var h = Harness(try graph(text))
        h.random = random
        h.start()
        var delays: [Double] = []
        for n in 1...failures {
            #expect(h.state.nodes["a"]?.attempt == n)
            h.fail("a", "e\(n)", permanent: false)
            let delay = try #require(h.dueIn("a"))
            delays.append(delay)
            let due = try #require(h.state.nodes["a"]?.dueAt)
            if delay > 0.002 { #expect(h.advance(to: due.addingTimeInterval(-0.001)).isEmpty) }
            #expect(h.advance(to: due).dispatches.map(\.attempt) == [n + 1])
        }
        return delays
    }

    static func close(_ a: [Double], _ b: [Double]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { abs($0 - $1) < 1e-6 }
    }

    @Test func immediate() throws {
        #expect(Self.close(try Self.backoffs(#""immediate""#, failures: 3), [0, 0, 0]))
    }

    @Test func constant() throws {
        #expect(Self.close(try Self.backoffs(#"{"constant": "2s"}"#, failures: 4), [2, 2, 2, 2]))
        #expect(Self.close(try Self.backoffs(#"{"constant": "250ms"}"#, failures: 2), [0.25, 0.25]))
    }

    @Test func incrementing() throws {
        // initial + (n - 1) * increment
        #expect(Self.close(try Self.backoffs(#"{"incrementing": {"initial": "1s", "increment": "3s"}}"#, failures: 5), [1, 4, 7, 10, 13]))
    }

    @Test func fibonacciBelowItsMax() throws {
        // period * 1, 1, 2, 3, 5, 8
        #expect(Self.close(try Self.backoffs(#"{"fibonacci": {"period": "2s", "max": "1m"}}"#, failures: 6), [2, 2, 4, 6, 10, 16]))
    }

    @Test func exponential() throws {
        // min(max, initial * factor^(n - 1))
        #expect(Self.close(try Self.backoffs(#"{"exponential": {"initial": "1s", "factor": 3, "max": "30s"}}"#, failures: 5), [1, 3, 9, 27, 30]))
        // factor defaults to 2
        #expect(Self.close(try Self.backoffs(#"{"exponential": {"initial": "500ms", "max": "3s"}}"#, failures: 5), [0.5, 1, 2, 3, 3]))
        // max defaults to an hour
        #expect(Self.close(try Self.backoffs(#"{"exponential": {"initial": "30m", "factor": 2}}"#, failures: 3), [1800, 3600, 3600]))
        // factor 1.5, not an integer
        #expect(Self.close(try Self.backoffs(#"{"exponential": {"initial": "4s", "factor": 1.5}}"#, failures: 3), [4, 6, 9]))
    }

    @Test("random: min + (max - min) * random", arguments: [0.0, 0.25, 0.5, 0.999])
    func random(_ r: Double) throws {
        let expected = 1 + 4 * r
        #expect(Self.close(try Self.backoffs(#"{"random": {"min": "1s", "max": "5s"}}"#, failures: 2, random: r), [expected, expected]))
    }

    @Test("jitter spreads the wait over [0.5, 1.5) of itself", arguments: [0.0, 0.25, 0.9])
    func jitter(_ r: Double) throws {
        #expect(Self.close(try Self.backoffs(#"{"constant": "10s"}"#, failures: 2, jitter: true, random: r), [10 * (0.5 + r), 10 * (0.5 + r)]))
        #expect(
            Self.close(
                try Self.backoffs(#"{"exponential": {"initial": "2s", "max": "1m"}}"#, failures: 3, jitter: true, random: r),
                [2 * (0.5 + r), 4 * (0.5 + r), 8 * (0.5 + r)]))
        // The random wait and its jitter both draw from the random source.
        let base = 1 + 4 * r
        #expect(Self.close(try Self.backoffs(#"{"random": {"min": "1s", "max": "5s"}}"#, failures: 1, jitter: true, random: r), [base * (0.5 + r)]))
    }

    @Test func withoutJitterTheRandomSourceDoesNotMatter() throws {
        #expect(Self.close(try Self.backoffs(#"{"constant": "10s"}"#, failures: 1, random: 0.0), [10]))
        #expect(Self.close(try Self.backoffs(#"{"constant": "10s"}"#, failures: 1, random: 0.9), [10]))
    }

    // MARK: - The strategy values on their own

    @Test func delayFormulas() {
        #expect(WaitStrategy.immediate.delay(after: 5, random: 0.7) == 0)
        #expect(WaitStrategy.constant(3).delay(after: 9, random: 0.7) == 3)
        #expect(WaitStrategy.incrementing(initial: 2, increment: 0.5).delay(after: 4, random: 0) == 3.5)
        #expect((1...7).map { WaitStrategy.fibonacci(period: 0.5, max: 100).delay(after: $0, random: 0) } == [0.5, 0.5, 1, 1.5, 2.5, 4, 6.5])
        #expect(
            (1...4).map { WaitStrategy.exponential(initial: 0.1, factor: 10, max: 50).delay(after: $0, random: 0) }
                .enumerated().allSatisfy { abs($1 - [0.1, 1, 10, 50][$0]) < 1e-9 })
        #expect(WaitStrategy.random(min: 2, max: 4).delay(after: 1, random: 0.75) == 3.5)
        // n below 1 counts as the first.
        #expect(WaitStrategy.incrementing(initial: 2, increment: 5).delay(after: 0, random: 0) == 2)
        #expect(WaitStrategy.exponential(initial: 1, factor: 2, max: 3600).delay(after: 1000, random: 0) == 3600)
    }

    @Test func retryPolicyJitter() {
        let p = RetryPolicy(attempts: 3, wait: .constant(8), jitter: true)
        #expect(p.delay(afterFailures: 1, random: 0.3, jitterRandom: 0) == 4)
        #expect(p.delay(afterFailures: 1, random: 0.3, jitterRandom: 0.5) == 8)
        #expect(p.delay(afterFailures: 1, random: 0.3, jitterRandom: 0.75) == 10)
        #expect(RetryPolicy(attempts: 3, wait: .constant(8)).delay(afterFailures: 1, random: 0.3, jitterRandom: 0.75) == 8)
        #expect(
            abs(RetryPolicy(attempts: 3, wait: .random(min: 0, max: 10), jitter: true).delay(afterFailures: 2, random: 0.4, jitterRandom: 0.1) - 2.4)
                < 1e-9)
    }

    /// min(max, period * fib(n)) must reach `max`: with period 1s and max 4s the waits are 1, 1, 2, 3, 4, 4.
    @Test
    func fibonacciReachesItsMax() throws {
        #expect((1...6).map { WaitStrategy.fibonacci(period: 1, max: 4).delay(after: $0, random: 0) } == [1, 1, 2, 3, 4, 4])
        #expect(WaitStrategy.fibonacci(period: 1, max: 60).delay(after: 30, random: 0) == 60)
        #expect(Self.close(try Self.backoffs(#"{"fibonacci": {"period": "1s", "max": "4s"}}"#, failures: 6), [1, 1, 2, 3, 4, 4]))
    }

    /// An exponential wait from 0 stays 0, however many attempts.
    @Test
    func exponentialFromZeroStaysZero() {
        #expect(WaitStrategy.exponential(initial: 0, factor: 100, max: 3600).delay(after: 200, random: 0) == 0)
        #expect(WaitStrategy.exponential(initial: 0, factor: 2, max: 60).delay(after: 1100, random: 0) == 0)
    }
}
