/// A small deterministic generator (SplitMix64) for the engine's random waits and jitter,
/// so a test with a seed sees the same waits on every run.
final class SeededRandom {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    /// The next number in 0..<1.
    func next() -> Double {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Double(z >> 11) / Double(1 << 53)
    }
}
