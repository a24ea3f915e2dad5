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
        var a = SeededRandom(seed: 9)
        var b = SeededRandom(seed: 9)
        for _ in 0..<20_000 {
            let old = b.chance(0.02) ? FaultKind.uniformKinds[b.index(FaultKind.uniformKinds.count)] : nil
            #expect(mix.draw(&a) == old)
        }
        #expect(FaultKind.uniformKinds.count == 11, "the uniform mix keeps the kinds from before the swarm")
    }

    @Test func eachSeedDrawsItsOwnMixSomeKindsOffSomeFrequent() {
        let each = 0.02 / Double(FaultKind.uniformKinds.count)
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

    /// A kind the options turn off (`--no-blocked-publishers`, `--no-queue-loss`,
    /// `--no-process-cuts`) is off in every seed's mix, and printed so; the others keep their chances.
    @Test func aKindTurnedOffIsOffInEverySeedsMix() {
        let off: Set<FaultKind> = [.blockedPublishers, .storeCut]
        for seed in UInt64(1)...50 {
            let all = FaultMix.swarm(seed: seed, rate: 0.02)
            let mix = FaultMix.swarm(seed: seed, rate: 0.02, disabled: off)
            for ((kind, chance), (_, before)) in zip(mix.chances, all.chances) {
                #expect(chance == (off.contains(kind) ? 0 : before), "\(kind) in seed \(seed)")
            }
            #expect(mix.line.contains("blocked-publishers off") && mix.line.contains("store-cut off"))
        }
        #expect(SimulationOptions().disabledFaults.isEmpty, "every kind is on by default")
        var options = SimulationOptions()
        options.processCuts = false
        options.queueLossRate = 0
        options.blockedPublishers = false
        #expect(options.disabledFaults == [.storeCut, .brokerCut, .taskQueueLost, .blockedPublishers])
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
