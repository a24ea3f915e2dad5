import Baton

/// A seeded random graph of fan-outs, chains and joins whose every output the
/// chaos suite can compute by itself: sources echo `{"v": i}`, every other node
/// adds the values it references plus its own index, modulo a prime. With
/// `bigOutputs`, a run of big outputs too (`ChaosGraph+BigOutputs`).
struct ChaosGraph {
    /// Keeps the sums of joins of joins from outgrowing 64 bits.
    static let modulo: Int64 = 1_000_000_007

    let document: JSON
    /// The output each node must end with.
    let expected: [String: JSON]
    /// Nodes that hold mutex `chaos` (every 25th): no two of them may ever be queued or running at once.
    let mutexed: Set<String>
    static let mutex = "chaos"

    init(nodes count: Int, seed: UInt64, secondsPerNode: Double, bigOutputs: Bool = false) {
        var rng = SplitMix64(seed: seed)
        var nodes: [(key: String, value: JSON)] = []
        var expected: [String: JSON] = [:]
        var values: [Int64] = []  // the number each node contributes to its dependents
        var mutexed = Set<String>()
        let sources = max(1, count / 20)
        for i in 0..<count {
            let key = "n-\(i)"
            if i < sources {
                nodes.append((key, ["procedure": "baton.echo", "input": ["v": .int(Int64(i))]]))
                expected[key] = ["v": .int(Int64(i))]
                values.append(Int64(i))
                continue
            }
            // The first reference is the previous node (a chain) a third of the time, otherwise a
            // recent one (many branches in flight, fan-outs); up to two more come from anywhere
            // earlier (joins).
            let window = UInt64(min(i, 50))
            var refs: [Int] = [rng.next() % 3 == 0 ? i - 1 : i - 1 - Int(rng.next() % window)]
            let extra = Int(rng.next() % 3)
            for _ in 0..<extra { refs.append(Int(rng.next() % UInt64(i))) }
            refs = Array(Set(refs)).sorted()
            var inputs: [JSON] = refs.map { r in
                r < sources ? ["$from": .string("n-\(r)"), "select": "/v"] : ["$from": .string("n-\(r)")]
            }
            inputs.append(.int(Int64(i)))
            var node = JSONObject([
                ("procedure", "demo.slow-add"),
                ("input", ["values": .array(inputs), "seconds": .double(secondsPerNode), "modulo": .int(Self.modulo)]),
            ])
            if i % 25 == 0 {
                node["mutex"] = [.string(Self.mutex)]
                mutexed.insert(key)
            }
            nodes.append((key, .object(node)))
            let sum = refs.reduce(Int64(i) % Self.modulo) { ($0 + values[$1]) % Self.modulo }
            expected[key] = .int(sum)
            values.append(sum)
        }
        Self.addComposites(to: &nodes, expected: &expected, secondsPerNode: secondsPerNode)
        if bigOutputs { Self.addBigOutputs(to: &nodes, expected: &expected, after: "n-\(max(sources, count / 2))") }
        document = ["name": .string("chaos-\(count)"), "nodes": .object(JSONObject(nodes))]
        self.expected = expected
        self.mutexed = mutexed
    }

    /// A map, a nested group and a spawning node (`demo.fib`), with the output of every child they add.
    static func addComposites(to nodes: inout [(key: String, value: JSON)], expected: inout [String: JSON], secondsPerNode: Double) {
        func slowAdd(_ values: JSON) -> JSON {
            ["procedure": "demo.slow-add", "input": ["values": values, "seconds": .double(secondsPerNode), "modulo": .int(modulo)]]
        }
        // map: element i gives i + i.
        let elements = 20
        nodes.append(
            (
                "map",
                [
                    "map": [
                        "over": .array((0..<elements).map { .int(Int64($0)) }), "procedure": "demo.slow-add", "concurrency": 5,
                        "input": ["values": [["$item": ""], ["$index": true]], "seconds": .double(secondsPerNode), "modulo": .int(modulo)],
                    ],
                    "retry": ["attempts": 3],
                ]
            ))
        for i in 0..<elements { expected["map/\(i)"] = .int(Int64(2 * i)) }
        expected["map"] = .array((0..<elements).map { .int(Int64(2 * $0)) })
        // A group in a group: x = n-0's v + 5, inner/y = x + 7.
        nodes.append(
            (
                "grp",
                [
                    "group": [
                        "nodes": [
                            "x": slowAdd([["$from": "n-0", "select": "/v"], 5]),
                            "inner": ["group": ["nodes": ["y": slowAdd([["$from": "x"], 7])], "output": ["$from": "y"]]],
                        ]
                    ]
                ]
            ))
        expected["grp/x"] = 5
        expected["grp/inner/y"] = 12
        expected["grp/inner"] = 12
        expected["grp"] = ["x": 5, "inner": 12]
        // Spawning: demo.fib(n) spawns a = fib(n-1), b = fib(n-2), sum.
        nodes.append(("fib", ["procedure": "demo.fib", "input": ["n": 10]]))
        func fib(_ n: Int) -> Int64 { n < 2 ? Int64(n) : fib(n - 1) + fib(n - 2) }
        func spawned(_ key: String, _ n: Int) {
            expected[key] = .int(fib(n))
            guard n >= 2 else { return }
            spawned(key + "/a", n - 1)
            spawned(key + "/b", n - 2)
            expected[key + "/sum"] = .int(fib(n))
        }
        spawned("fib", 10)
    }
}

/// A small, fast, seedable generator (so a failing run can be repeated with its seed).
struct SplitMix64 {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
