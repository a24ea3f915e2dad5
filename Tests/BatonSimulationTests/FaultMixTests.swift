import Testing

@testable import BatonSimulation

/// The swarm: each seed draws its own chance for every fault kind, some off, some frequent; the
/// uniform mix draws exactly as the simulator did before the swarm.
@Suite("baton-sim: fault mix")
struct FaultMixTests {
    @Test func theUniformMixDrawsAsBeforeTheSwarm() {
        let mix = FaultMix.uniform(rate: 0.02)
        #expect(mix.total == 0.02)
        #expect(mix.line == "uniform 2.00% a step")
        #expect(FaultKind.beforeTheSwarm == Array(FaultKind.allCases.prefix(11)), "the first eleven kinds, in their order")
        var a = SeededRandom(seed: 9)
        var b = SeededRandom(seed: 9)
        for _ in 0..<20_000 {
            let old = b.chance(0.02) ? FaultKind.allCases[b.index(11)] : nil  // the eleven kinds of before the swarm
            #expect(mix.draw(&a) == old)
        }
    }

    @Test func eachSeedDrawsItsOwnMixSomeKindsOffSomeFrequent() {
        let each = 0.02 / Double(FaultKind.allCases.count)
        let mixes = (1...300).map { FaultMix.swarm(seed: $0, rate: 0.02) }
        #expect(FaultMix.swarm(seed: 5, rate: 0.02) == mixes[4], "a seed's mix replays")
        #expect(Set(mixes.map(\.line)).count == mixes.count, "every seed has a mix of its own")
        for kind in FaultKind.allCases {
            let chances = mixes.map { mix in mix.chances.first { $0.kind == kind }!.chance }
            #expect(chances.contains(0), "\(kind) is off in some seeds")
            #expect(chances.contains { $0 > 4 * each }, "\(kind) is frequent in some seeds")
            #expect(chances.contains { $0 > 0 && $0 < each / 4 }, "\(kind) is rare in some seeds")
            #expect(chances.allSatisfy { $0 == 0 || ($0 >= each / FaultMix.spread && $0 <= each * FaultMix.spread) })
            let off = Double(chances.filter { $0 == 0 }.count) / Double(chances.count)
            #expect(abs(off - FaultMix.offChance) < 0.1, "\(kind) off in \(off) of the seeds")
        }
    }

    @Test func theSwarmDrawsOnlyTheKindsItHasInProportion() throws {
        let mix = try #require((1...100).map { FaultMix.swarm(seed: $0, rate: 0.02) }.first { mix in mix.chances.contains { $0.chance == 0 } })
        var random = SeededRandom(seed: 3)
        var drawn: [FaultKind: Int] = [:]
        var steps = 0
        while steps < 400_000 {
            steps += 1
            if let kind = mix.draw(&random) { drawn[kind, default: 0] += 1 }
        }
        for (kind, chance) in mix.chances {
            let n = drawn[kind] ?? 0
            if chance == 0 {
                #expect(n == 0, "\(kind) is off but was drawn")
            } else {
                let expected = chance * Double(steps)
                #expect(abs(Double(n) - expected) < 5 * expected.squareRoot() + 5, "\(kind): \(n) drawn, \(expected) expected")
            }
        }
        #expect(mix.line.hasPrefix("swarm "))
        #expect(mix.line.contains(" off"))
    }
}
