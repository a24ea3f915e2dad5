import Baton
import BatonDemo
import BatonTesting
import Foundation
import Testing

@Suite("fair shares: the table's order and limit, decoding, the scheduler's request, a local run")
struct FairShareTests {
    static let target = "fair/default:p"

    static func fair(_ key: String, _ node: String, weight: Int = 1, priority: Int = 0) -> AdmissionRequest {
        AdmissionRequest(key: node, claims: [.share(pool: "default", procedure: "p", key: key, weight: weight)], priority: priority)
    }

    static func table(limit: Int) -> AdmissionTable {
        var t = AdmissionTable()
        t.shareLimits[target] = limit
        return t
    }

    /// Ends the oldest held node `count` times: the keys of the nodes granted in its place, in order.
    static func order(_ t: inout AdmissionTable, count: Int) -> [String] {
        var held = t.all.filter(\.granted).map(\.key)
        var keys: [String] = []
        for _ in 0..<count {
            let granted = AdmissionTableTests.granted(t.release(runID: "r", key: held.removeFirst())).map { String($0.dropFirst(2)) }
            held += granted
            keys += granted.map { String($0.prefix(1)) }
        }
        return keys
    }

    @Test func aBacklogOfOneKeyDoesNotStarveAnother() {
        var t = Self.table(limit: 2)
        for i in 0..<10 { _ = t.request(runID: "r", Self.fair("a", "a\(i)")) }
        #expect(t.holders(of: Self.target) == 2, "at most the limit is held")
        _ = t.request(runID: "r", Self.fair("b", "b0"))
        _ = t.request(runID: "r", Self.fair("b", "b1"))
        // a holds 2, b none: b goes; then whichever key holds fewer.
        #expect(AdmissionTableTests.granted(t.release(runID: "r", key: "a0")) == ["r/b0"])
        #expect(AdmissionTableTests.granted(t.release(runID: "r", key: "a1")) == ["r/a2"])
        #expect(AdmissionTableTests.granted(t.release(runID: "r", key: "b0")) == ["r/b1"])
        #expect(t.holders(of: Self.target, shareKey: "a") == 1 && t.holders(of: Self.target, shareKey: "b") == 1)
    }

    @Test func keysGoRoundRobinInProportionToTheirWeights() {
        var t = Self.table(limit: 0)
        for i in 0..<20 {
            _ = t.request(runID: "r", Self.fair("a", "a\(i)", weight: 1))
            _ = t.request(runID: "r", Self.fair("b", "b\(i)", weight: 2))
        }
        t.shareLimits[Self.target] = 6
        #expect(AdmissionTableTests.granted(t.grantWaiting()).count == 6)
        #expect(t.holders(of: Self.target, shareKey: "a") == 2, "\(t.all.filter(\.granted).map(\.key))")
        #expect(t.holders(of: Self.target, shareKey: "b") == 4)
    }

    @Test func equalKeysAlternateOldestFirst() {
        var t = Self.table(limit: 2)
        for i in 0..<6 { _ = t.request(runID: "r", Self.fair("a", "a\(i)")) }
        for i in 0..<3 { _ = t.request(runID: "r", Self.fair("b", "b\(i)")) }
        // a0 and a1 were granted at once; then each release lets the key holding fewest go (ties: the oldest).
        #expect(Self.order(&t, count: 7) == ["b", "a", "b", "a", "b", "a", "a"])
    }

    @Test func priorityComesBeforeTheShare() {
        var t = Self.table(limit: 1)
        _ = t.request(runID: "r", Self.fair("a", "a0"))
        _ = t.request(runID: "r", Self.fair("b", "b0"))
        _ = t.request(runID: "r", Self.fair("a", "a1", priority: 5))
        #expect(AdmissionTableTests.granted(t.release(runID: "r", key: "a0")) == ["r/a1"])
    }

    @Test func noLiveWorkerNothingGranted() {
        var t = AdmissionTable()
        #expect(AdmissionTableTests.granted(t.request(runID: "r", Self.fair("a", "a0"))).isEmpty)
        t.shareLimits[Self.target] = 2
        #expect(AdmissionTableTests.granted(t.grantWaiting()) == ["r/a0"])
    }

    @Test func aRestoredTableCountsTheHeldGrantsPerKey() {
        let claim = AdmissionClaim.share(pool: "default", procedure: "p", key: "a", weight: 1)
        let claimB = AdmissionClaim.share(pool: "default", procedure: "p", key: "b", weight: 1)
        let entries = [
            AdmissionTable.Entry(seq: 1, runID: "r", key: "a0", claims: [claim], cache: nil, granted: true),
            AdmissionTable.Entry(seq: 2, runID: "r", key: "a1", claims: [claim], cache: nil, granted: false),
            AdmissionTable.Entry(seq: 3, runID: "r", key: "b0", claims: [claimB], cache: nil, granted: false),
        ]
        var t = AdmissionTable(entries: entries, shareLimits: [Self.target: 2])
        #expect(t.shareClaims == [Self.target])
        #expect(AdmissionTableTests.granted(t.grantWaiting()) == ["r/b0"], "a holds one already: b goes before the older a1")
    }

    @Test func aPassReadsOnlyEachKeysFirstWaitersAndGrantsTheSame() {
        var entries: [AdmissionTable.Entry] = []
        for i in 0..<50 {
            let key = i < 40 ? "a" : "b"
            entries.append(
                AdmissionTable.Entry(
                    seq: Int64(i + 1), runID: "r", key: "n\(i)", claims: [.share(pool: "default", procedure: "p", key: key, weight: 1)], cache: nil,
                    granted: i < 2, priority: i == 30 ? 5 : 0))
        }
        entries.append(AdmissionTable.Entry(seq: 99, runID: "r", key: "m", claims: [.mutex("db")], cache: nil, granted: false))
        let heads = AdmissionTable.shareHeads(entries, perKey: 4)
        #expect(Set(heads.map(\.key)) == ["n0", "n1", "n30", "n2", "n3", "n4", "n40", "n41", "n42", "n43", "m"])
        var full = AdmissionTable(entries: entries, shareLimits: [Self.target: 6])
        var read = AdmissionTable(entries: heads, shareLimits: [Self.target: 6])
        #expect(AdmissionTableTests.granted(full.grantWaiting()) == AdmissionTableTests.granted(read.grantWaiting()))
    }

    @Test func limitsComeFromTheLiveWorkersServingThePoolAndProcedure() {
        let limits = AdmissionTable.shareLimits(
            for: ["fair/default:p", "fair/gpu:p", "fair/default:q", "mutex/x"],
            workers: [(["default"], ["p", "q"], 8), (["default", "gpu"], ["p"], 4), (["gpu"], ["q"], 3)])
        let w = AdmissionTable.shareWindow
        #expect(limits == ["fair/default:p": 24 + w, "fair/gpu:p": 8 + w, "fair/default:q": 16 + w])
        #expect(AdmissionTable.shareLimit(slots: 0) == 0, "no live worker: no room")
    }

    @Test func aShareAndAMutexAreTakenTogether() {
        var t = Self.table(limit: 4)
        _ = t.request(runID: "r", AdmissionRequest(key: "holder", claims: [.mutex("db")]))
        let both = AdmissionRequest(key: "a0", claims: [.mutex("db"), .share(pool: "default", procedure: "p", key: "a", weight: 1)])
        #expect(AdmissionTableTests.granted(t.request(runID: "r", both)).isEmpty)
        #expect(t.holders(of: Self.target) == 0)
        #expect(AdmissionTableTests.granted(t.release(runID: "r", key: "holder")) == ["r/a0"])
        #expect(t.holders(of: Self.target, shareKey: "a") == 1)
    }

    // MARK: - Decoding

    @Test func aNodeAMapAndDefaultsDecodeTheirFair() throws {
        let g = try graph(
            #"""
            {"input": {"tenant": "acme"}, "defaults": {"fair": {"key": "everyone"}},
             "nodes": {"a": {"procedure": "p"},
             "n": {"procedure": "p", "fair": {"key": {"$input": "/tenant"}, "weight": 3}},
             "k": {"procedure": "p", "fair": {"key": {"$from": "a", "select": "/t"}}},
             "m": {"map": {"over": {"$from": "a"}, "procedure": "p", "fair": {"key": {"$item": "/t"}, "weight": 2}}},
             "d": {"map": {"over": {"$from": "a"}, "procedure": "p"}}}}
            """#)
        #expect(g.nodes["n"]?.policies.fair == FairPolicy(key: .literal("acme"), weight: 3))
        #expect(g.nodes["a"]?.policies.fair == FairPolicy(key: .literal("everyone"), weight: 1))
        #expect(g.nodes["k"]?.dependencies == ["a"], "a $from in the key is a dependency")
        #expect(g.nodes["n"]?.policies.needsAdmission == true)
        guard case let .map(spec)? = g.nodes["m"]?.kind, case let .map(plain)? = g.nodes["d"]?.kind else {
            Issue.record("m or d is not a map")
            return
        }
        #expect(spec.fair?.weight == 2)
        #expect(plain.fair == FairPolicy(key: .literal("everyone"), weight: 1), "a map's children take the default")
        #expect(g.nodes["m"]?.policies.fair == nil)
        #expect(try Graph(plan: g.planBytes()).nodes == g.nodes, "the plan keeps them")
    }

    @Test(
        "each bad fair is one clear problem",
        arguments: [
            (#""fair": 5"#, "fair", "must be an object like"),
            (#""fair": {"weight": 2}"#, "fair/key", "is required"),
            (#""fair": {"key": "a", "weight": 0}"#, "fair/weight", "must be an integer from 1 to 1000, found 0"),
            (#""fair": {"key": "a", "weight": 1.5}"#, "fair/weight", "must be an integer from 1 to 1000"),
            (#""fair": {"key": "a", "share": 2}"#, "fair/share", "unknown field (expected one of: key, weight)"),
            (#""fair": {"key": [1]}"#, "fair/key", "must be a string, number or boolean, found array"),
            (#""fair": {"key": {"$item": ""}}"#, "fair/key", "$item"),
            (#""fair": {"key": {"$from": "zz"}}"#, "fair/key", "zz"),
        ])
    func badFair(_ fields: String, _ field: String, _ message: String) {
        let found = problems(AdmissionDecodingTests.node(fields))
        #expect(found.count == 1, "\(found)")
        #expect(found.first?.node == "n")
        #expect(found.first?.field.hasPrefix(field) == true, "\(found.first?.field ?? "")")
        #expect(found.first?.message.contains(message) == true, "\(found.first?.message ?? "")")
    }

    @Test func fairBelongsOnAProcedureNodeOrInAMapAndDefaultsHaveNoFrom() {
        #expect(
            problems(#"{"nodes": {"a": {"procedure": "p"}, "m": {"map": {"over": {"$from": "a"}, "procedure": "p"}, "fair": {"key": "k"}}}}"#)
                .map { "\($0.field): \($0.message)" } == ["fair: cannot be used on a map node (set it on its children); use map/fair"])
        #expect(
            problems(#"{"defaults": {"fair": {"key": {"$from": "a"}}}, "nodes": {"a": {"procedure": "p"}}}"#).map(\.field) == [
                "defaults/fair/key"
            ])
        #expect(
            problems(
                #"{"nodes": {"a": {"procedure": "p"}, "m": {"map": {"over": {"$from": "a"}, "procedure": "p", "fair": {"key": "k", "weight": -1}}}}}"#
            )
            .map(\.field) == ["map/fair/weight"])
        #expect(
            problems(#"{"nodes": {"d": {"procedure": "baton.delay", "input": {"seconds": 1}, "fair": {"key": "k"}}}}"#).map(\.field) == ["fair"])
    }

    @Test func theBuilderWritesFair() throws {
        var g = GraphBuilder(name: "built")
        g.add("bill", procedure: "baton.echo", options: NodeOptions(fair: FairOption(key: GraphValue<String>.runInput("/tenant"), weight: 2)))
        g.add("fixed", procedure: "baton.echo", options: NodeOptions(fair: FairOption(key: "acme")))
        #expect(g.json()["nodes"]?["fixed"]?["fair"] == ["key": "acme"])
        let built = try g.build(input: ["tenant": "globex"])
        #expect(built.nodes["bill"]?.policies.fair == FairPolicy(key: .literal("globex"), weight: 2))
    }

    // MARK: - Scheduler

    @Test func theRequestCarriesTheEvaluatedKeyPoolAndWeightAndTheEventSaysWhy() throws {
        var h = Harness(
            try graph(
                #"{"input": {"t": "acme"}, "nodes": {"n": {"procedure": "p", "pool": "gpu", "priority": 4, "fair": {"key": {"$input": "/t"}, "weight": 2}}}}"#
            ))
        let out = h.start()
        #expect(out.acquires == [AdmissionRequest(key: "n", claims: [.share(pool: "gpu", procedure: "p", key: "acme", weight: 2)], priority: 4)])
        let change = out.compactMap { command -> NodeChange? in
            if case let .node(c) = command { return c }; return nil
        }.first
        #expect(change?.eventKind == .awaitingShare)
        #expect(change?.detail == JSONObject([("fair", "acme"), ("weight", 2)]))
    }

    @Test func mapChildrenTakeTheirKeyFromTheirItem() throws {
        var h = Harness(
            try graph(#"{"nodes": {"m": {"map": {"over": [{"t": "x"}, {"t": 7}], "procedure": "p", "fair": {"key": {"$item": "/t"}}}}}}"#))
        let out = h.start()
        #expect(
            Set(out.acquires.map(\.claims)) == [
                [.share(pool: "default", procedure: "p", key: "x", weight: 1)], [.share(pool: "default", procedure: "p", key: "7", weight: 1)],
            ])
    }

    // MARK: - A local run

    @Test func aLocalRunWithFairEnds() async throws {
        let registry = ProcedureRegistry.demo
        let graph = try GraphDecoder(knownProcedures: Set(registry.names)).decode(try ExampleGraphTests.load("fair.json"))
        var engine = LocalEngine(registry: registry, maxConcurrency: 2)
        engine.clock = TestClock()
        let state = await engine.run(graph, runID: "fair-run")
        #expect(state.status == .succeeded)
        #expect(state.nodes.values.allSatisfy { $0.status == .succeeded })
    }
}
