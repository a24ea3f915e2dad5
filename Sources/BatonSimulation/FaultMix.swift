import Foundation

/// One seed's chance per step of each fault kind. The swarm draws each kind's chance from a random
/// stream of that kind's own (seeded by the seed and the kind's name), so a kind added to `FaultKind`
/// joins the mix with no other change and leaves the other kinds' chances as they were.
struct FaultMix: Sendable, Equatable {
    /// The chance per step of each kind, in `FaultKind.allCases` order (0: off in this seed).
    let chances: [(kind: FaultKind, chance: Double)]
    /// Whether this is the uniform mix, which draws as the simulator did before the swarm.
    let uniform: Bool
    /// The chance of some fault at a step (the uniform mix's rate as given, so its draws are the old ones).
    let total: Double

    init(chances: [(kind: FaultKind, chance: Double)], uniform: Bool, total: Double? = nil) {
        self.chances = chances
        self.uniform = uniform
        self.total = total ?? chances.reduce(0) { $0 + $1.chance }
    }

    /// The chance that a kind is off in a seed of the swarm.
    static let offChance = 0.25
    /// A kind that is on strikes this many times as often as under the uniform mix, at most and at least
    /// (log-uniformly in between).
    static let spread = 8.0

    /// `rate` shared evenly among the kinds, as before the swarm.
    static func uniform(rate: Double) -> FaultMix {
        let each = rate / Double(FaultKind.uniformKinds.count)
        return FaultMix(chances: FaultKind.uniformKinds.map { ($0, each) }, uniform: true, total: rate)
    }

    /// `seed`'s own mix around `rate`: each kind off (`offChance`) or at the uniform mix's chance times
    /// a factor from 1/`spread` to `spread`, log-uniformly.
    /// Kinds in `disabled` (turned off by the options) are off in every seed; the others' chances stay as
    /// they were.
    static func swarm(seed: UInt64, rate: Double, disabled: Set<FaultKind> = []) -> FaultMix {
        let each = rate / Double(FaultKind.uniformKinds.count)
        return FaultMix(
            chances: FaultKind.allCases.map { kind in
                var random = SeededRandom(seed: seed ^ 0x5A4A_3F00_0000_0000 ^ Self.nameHash(kind.rawValue))
                guard !random.chance(offChance), !disabled.contains(kind) else { return (kind, 0) }
                return (kind, each * exp((random.unit() * 2 - 1) * log(spread)))
            }, uniform: false)
    }

    static func == (a: FaultMix, b: FaultMix) -> Bool {
        a.uniform == b.uniform && a.total == b.total && a.chances.map(\.kind) == b.chances.map(\.kind)
            && a.chances.map(\.chance) == b.chances.map(\.chance)
    }

    /// The kind that strikes at a step, if any: the uniform mix draws as before the swarm (a chance of
    /// `total`, then a kind evenly), the swarm's kinds in proportion to their chances.
    func draw(_ random: inout SeededRandom) -> FaultKind? {
        let total = total
        guard total > 0, random.chance(total) else { return nil }
        if uniform { return FaultKind.uniformKinds[random.index(FaultKind.uniformKinds.count)] }
        var pick = random.unit() * total
        for (kind, chance) in chances where chance > 0 {
            pick -= chance
            if pick < 0 { return kind }
        }
        return chances.last { $0.chance > 0 }?.kind
    }

    /// `uniform 2.00% a step` or `swarm 2.31% a step: clock-jump 0.52%, commit-fails off, …`.
    var line: String {
        let head = "\(uniform ? "uniform" : "swarm") " + Self.percent(total) + " a step"
        guard !uniform else { return head }
        return head + ": " + chances.map { "\($0.kind.rawValue) " + ($0.chance > 0 ? Self.percent($0.chance) : "off") }.joined(separator: ", ")
    }

    private static func percent(_ p: Double) -> String { String(format: "%.2f%%", p * 100) }

    /// FNV-1a of `name`: stable across processes and builds, unlike `Hasher`.
    static func nameHash(_ name: String) -> UInt64 {
        name.utf8.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01B3 }
    }
}
