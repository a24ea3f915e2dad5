import Baton

/// A graph the simulator submits, with what its run must end as: the oracle for "no result is lost".
struct SimulationGraph: Sendable {
    let name: String
    let document: JSON
    /// Node key → the output it must end with (checked when the run succeeded).
    let outputs: [String: JSON]
    /// Admission claims by node key, for the mutex and concurrency checks: (claim, limit).
    let claims: [String: (name: String, limit: Int)]
    /// Nodes whose task kills every worker that runs it (`SimulatedExecutor.poisonKey`): each must
    /// end failed, dead-lettered (checked in quorum runs, `QuorumInvariants`).
    var poison: [String] = []
    /// Signal nodes the simulator signals, at a random moment, with these values (`signal` graphs).
    var signals: [String: JSON] = [:]
    /// Signal nodes nobody signals: each must time out (and a signal after the run ended is refused).
    var silentSignals: [String] = []
    /// Rate limits by node key, for the rate check: (key, limit, per seconds). Keys are shared by
    /// every run of the graph, as on a cluster.
    var rates: [String: (key: String, limit: Int, per: Double)] = [:]

    static let catalog: [SimulationGraph] = [
        SimulationGraph(
            name: "chain",
            document: [
                "name": "chain",
                "nodes": [
                    "a": ["procedure": "baton.echo", "input": ["v": 1]],
                    "b": ["procedure": "baton.add", "input": ["values": [["$from": "a", "select": "/v"], 2]]],
                    "c": ["procedure": "baton.echo", "input": ["sum": ["$from": "b"]]],
                ],
            ], outputs: ["c": ["sum": 3]], claims: [:]),
        SimulationGraph(
            name: "fan-in",
            document: [
                "name": "fan-in",
                "nodes": [
                    "x1": ["procedure": "baton.add", "input": ["values": [1, 1]]],
                    "x2": ["procedure": "baton.add", "input": ["values": [2, 2]]],
                    "x3": ["procedure": "baton.add", "input": ["values": [3, 3]]],
                    "x4": ["procedure": "baton.add", "input": ["values": [4, 4]]],
                    "join": [
                        "procedure": "baton.add",
                        "input": ["values": [["$from": "x1"], ["$from": "x2"], ["$from": "x3"], ["$from": "x4"]]],
                    ],
                ],
            ], outputs: ["join": 20], claims: [:]),
        SimulationGraph(
            name: "retry",
            document: [
                "name": "retry",
                "nodes": [
                    "flaky": [
                        "procedure": "baton.fail", "input": ["message": "flaky", "succeed_on_attempt": 2],
                        "retry": ["attempts": 4, "wait": ["constant": "500ms"]],
                    ],
                    "after": ["procedure": "baton.echo", "input": ["ok": true], "after": ["flaky"]],
                ],
            ], outputs: ["after": ["ok": true]], claims: [:]),
        SimulationGraph(
            name: "ignore",
            document: [
                "name": "ignore",
                "nodes": [
                    "bad": ["procedure": "baton.fail", "input": ["message": "no", "permanent": true], "on_failure": "ignore"],
                    "next": ["procedure": "baton.echo", "input": ["x": ["$from": "bad"]]],
                ],
            ], outputs: ["next": ["x": .null]], claims: [:]),
        SimulationGraph(
            name: "mutex",
            document: [
                "name": "mutex",
                "nodes": [
                    "m1": ["procedure": "baton.sleep", "input": ["seconds": 0.4], "mutex": ["disk"]],
                    "m2": ["procedure": "baton.sleep", "input": ["seconds": 0.4], "mutex": ["disk"]],
                    "m3": ["procedure": "baton.sleep", "input": ["seconds": 0.4], "mutex": ["disk"]],
                ],
            ], outputs: ["m3": ["slept": 0.4]], claims: ["m1": ("disk", 1), "m2": ("disk", 1), "m3": ("disk", 1)]),
        SimulationGraph(
            name: "limit",
            document: [
                "name": "limit",
                "nodes": [
                    "l1": ["procedure": "baton.sleep", "input": ["seconds": 0.3], "concurrency": ["key": "api", "limit": 2]],
                    "l2": ["procedure": "baton.sleep", "input": ["seconds": 0.3], "concurrency": ["key": "api", "limit": 2]],
                    "l3": ["procedure": "baton.sleep", "input": ["seconds": 0.3], "concurrency": ["key": "api", "limit": 2]],
                    "l4": ["procedure": "baton.sleep", "input": ["seconds": 0.3], "concurrency": ["key": "api", "limit": 2]],
                ],
            ], outputs: [:], claims: ["l1": ("api", 2), "l2": ("api", 2), "l3": ("api", 2), "l4": ("api", 2)]),
        SimulationGraph(
            name: "cache",
            document: [
                "name": "cache",
                "nodes": [
                    "c": ["procedure": "baton.add", "input": ["values": [40, 2]], "cache": ["ttl": "1h"]],
                    "d": ["procedure": "baton.echo", "input": ["got": ["$from": "c"]]],
                ],
            ], outputs: ["c": 42, "d": ["got": 42]], claims: [:]),
        SimulationGraph(
            name: "map",
            document: [
                "name": "map",
                "nodes": [
                    "numbers": ["procedure": "baton.echo", "input": ["items": [1, 2, 3]]],
                    "plus": [
                        "map": [
                            "over": ["$from": "numbers", "select": "/items"], "procedure": "baton.add",
                            "input": ["values": [["$item": ""], 10]], "concurrency": 2,
                        ]
                    ],
                    "total": ["procedure": "baton.add", "input": ["values": ["$from": "plus"]]],
                ],
            ], outputs: ["plus": [11, 12, 13], "total": 36], claims: [:]),
        SimulationGraph(
            name: "spawn",
            document: ["name": "spawn", "nodes": ["fib": ["procedure": "demo.fib", "input": ["n": 5]]]],
            outputs: ["fib": 5], claims: [:]),
        SimulationGraph(
            name: "delay",
            document: [
                "name": "delay",
                "nodes": [
                    "wait": ["procedure": "baton.delay", "input": ["seconds": 1.5]],
                    "then": ["procedure": "baton.echo", "input": ["done": true], "after": ["wait"]],
                ],
            ], outputs: ["then": ["done": true]], claims: [:]),
        rate,
    ]

    /// Signal nodes: `early` waits behind a node (so its signal often comes first and is kept),
    /// `approve` waits at once; the simulator sends both at random moments, across faults.
    static let signal = SimulationGraph(
        name: "signal",
        document: [
            "name": "signal",
            "nodes": [
                "first": ["procedure": "baton.echo", "input": ["v": 1]],
                "early": ["signal": "early", "after": ["first"]],
                "approve": ["signal": "approval"],
                "then": ["procedure": "baton.echo", "input": ["got": ["$from": "approve"], "early": ["$from": "early"]]],
            ],
        ], outputs: ["early": 7, "approve": ["approved": true], "then": ["got": ["approved": true], "early": 7]], claims: [:],
        signals: ["early": 7, "approve": ["approved": true]])

    /// A signal node nobody signals: it times out, which its `on_failure: ignore` lets the run survive.
    static let signalTimeout = SimulationGraph(
        name: "signal-timeout",
        document: [
            "name": "signal-timeout",
            "nodes": [
                "never": ["signal": "never", "timeout": "2s", "on_failure": "ignore"],
                "after": ["procedure": "baton.echo", "input": ["x": ["$from": "never"]]],
            ],
        ], outputs: ["after": ["x": .null]], claims: [:], silentSignals: ["never"])

    /// Nodes sharing a rate (2 starts a second, across every run of it), one of them with a mutex
    /// too, and a map whose children each take a token.
    static let rate: SimulationGraph = {
        let quota: JSON = ["key": "quota", "limit": 2, "per": "1s"]
        return SimulationGraph(
            name: "rate",
            document: [
                "name": "rate",
                "nodes": [
                    "r1": ["procedure": "baton.echo", "input": ["n": 1], "rate": quota],
                    "r2": ["procedure": "baton.echo", "input": ["n": 2], "rate": quota],
                    "r3": ["procedure": "baton.sleep", "input": ["seconds": 0.2], "rate": quota, "mutex": ["disk"]],
                    "r4": [
                        "map": ["over": [1, 2, 3], "procedure": "baton.add", "input": ["values": [["$item": ""], 1]], "rate": quota]
                    ],
                ],
            ], outputs: ["r2": ["n": 2], "r4": [2, 3, 4]], claims: ["r3": ("disk", 1)], poison: [],
            rates: [
                "r1": ("quota", 2, 1), "r2": ("quota", 2, 1), "r3": ("quota", 2, 1), "r4/0": ("quota", 2, 1), "r4/1": ("quota", 2, 1),
                "r4/2": ("quota", 2, 1),
            ])
    }()

    /// (Drawn beside the catalog unless `SimulationOptions.fairShares` is off.) A backlog of one fair key ("bulk", a map of 8) beside two nodes of another ("vip", weight 2) and
    /// one of a third from the run input's default, all on one procedure: shared by every run of it,
    /// so the share check (`InvariantChecker.checkShares`) sees keys compete across runs.
    static let fair = SimulationGraph(
        name: "fair",
        document: [
            "name": "fair",
            "defaults": ["fair": ["key": "plain"]],
            "nodes": [
                "bulk": [
                    "map": [
                        "over": [1, 2, 3, 4, 5, 6, 7, 8], "procedure": "baton.add", "input": ["values": [["$item": ""], 1]],
                        "fair": ["key": "bulk"],
                    ]
                ],
                "v1": ["procedure": "baton.add", "input": ["values": [1, 1]], "fair": ["key": "vip", "weight": 2]],
                "v2": ["procedure": "baton.add", "input": ["values": [2, 2]], "fair": ["key": "vip", "weight": 2]],
                "p": ["procedure": "baton.add", "input": ["values": [3, 3]]],
            ],
        ], outputs: ["bulk": [2, 3, 4, 5, 6, 7, 8, 9], "v1": 2, "v2": 4, "p": 6], claims: [:])

    /// A node that runs for longer than a worker's lease (10 s in the simulator): drawn too when some
    /// workers publish as before partitions, so their leases are kept only if their heartbeats count.
    static let long = SimulationGraph(
        name: "long",
        document: [
            "name": "long",
            "nodes": [
                "slow": ["procedure": "baton.sleep", "input": ["seconds": 15]],
                "then": ["procedure": "baton.echo", "input": ["after": ["$from": "slow"]]],
            ],
        ], outputs: ["then": ["after": ["slept": 15]]], claims: [:])
}
