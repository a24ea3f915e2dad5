import Baton

/// A seeded generator shared by reference: the processes' own random numbers (jitter, waits)
/// come from it, in the order the simulator's steps ask.
final class RandomSource: @unchecked Sendable {
    // Safe: the simulator is single-threaded.
    var generator: SeededRandom

    init(seed: UInt64) { generator = SeededRandom(seed: seed) }

    func unit() -> Double { generator.unit() }

    /// An attempt token drawn from the seed (a cluster's come from the system's CSPRNG).
    func token() -> AttemptToken { AttemptToken(high: generator.next(), low: generator.next()) }
}
