import Baton
import BatonDemo
import BatonTesting
import Foundation
import Testing

@Suite("rate limits: the table's tokens, decoding, the scheduler's request, a local run")
struct RateLimitTests {
    static let t0 = Date(timeIntervalSince1970: 1_000_000)

    static func rate(
        _ key: String, _ node: String, limit: Int = 2, per: Double = 1, priority: Int = 0, mutex: [String] = []
    )
        -> AdmissionRequest
    {
        AdmissionRequest(key: node, claims: mutex.map(AdmissionClaim.mutex) + [.rate(key, limit: limit, per: per)], priority: priority)
    }

    @Test func atMostLimitGrantsPerWindowThenTheNextWhenATokenIsDue() {
        var t = AdmissionTable(now: Self.t0)
        #expect(AdmissionTableTests.granted(t.request(runID: "r", Self.rate("api", "a"))) == ["r/a"])
        #expect(AdmissionTableTests.granted(t.request(runID: "r", Self.rate("api", "b"))) == ["r/b"])
        #expect(AdmissionTableTests.granted(t.request(runID: "r", Self.rate("api", "c"))).isEmpty)
        #expect(t.tokensTaken("rate/api") == 2)
        // A token counts for `per` plus its slack (a tenth, at most 100 ms).
        let due = Self.t0.addingTimeInterval(1.1)
        #expect(t.nextToken == due)
        #expect(AdmissionTableTests.granted(t.release(runID: "r", key: "a")).isEmpty, "a token is not given back when its node ends")
        t.now = due.addingTimeInterval(-0.001)
        #expect(AdmissionTableTests.granted(t.grantWaiting()).isEmpty)
        t.now = due
        #expect(AdmissionTableTests.granted(t.grantWaiting()) == ["r/c"])
        #expect(t.nextToken == nil, "nobody waits")
    }

    @Test func keysAreIndependent() {
        var t = AdmissionTable(now: Self.t0)
        _ = t.request(runID: "r", Self.rate("api", "a", limit: 1))
        #expect(AdmissionTableTests.granted(t.request(runID: "r", Self.rate("other", "b", limit: 1))) == ["r/b"])
        #expect(AdmissionTableTests.granted(t.request(runID: "r", Self.rate("api", "c", limit: 1))).isEmpty)
    }

    @Test func waitersGoInPriorityOrderThenFirstComeFirstServed() {
        var t = AdmissionTable(now: Self.t0)
        _ = t.request(runID: "r", Self.rate("api", "first", limit: 1))
        _ = t.request(runID: "r", Self.rate("api", "low", limit: 1, priority: 0))
        _ = t.request(runID: "r", Self.rate("api", "high", limit: 1, priority: 5))
        _ = t.request(runID: "r", Self.rate("api", "high2", limit: 1, priority: 5))
        var order: [String] = []
        for step in 1...3 {
            t.now = Self.t0.addingTimeInterval(1.2 * Double(step))
            order += AdmissionTableTests.granted(t.grantWaiting())
        }
        #expect(order == ["r/high", "r/high2", "r/low"])
    }

    @Test func aRateAndAMutexAreTakenTogether() {
        var t = AdmissionTable(now: Self.t0)
        _ = t.request(runID: "r", AdmissionRequest(key: "holder", claims: [.mutex("db")]))
        #expect(AdmissionTableTests.granted(t.request(runID: "r", Self.rate("api", "a", limit: 1, mutex: ["db"]))).isEmpty)
        #expect(t.tokensTaken("rate/api") == 0, "no token is taken while the mutex is held elsewhere")
        #expect(AdmissionTableTests.granted(t.release(runID: "r", key: "holder")) == ["r/a"])
        #expect(t.tokensTaken("rate/api") == 1 && t.holders(of: "mutex/db") == 1)
        // The mutex is free again, but the rate is spent: the next waits for the token.
        _ = t.release(runID: "r", key: "a")
        #expect(AdmissionTableTests.granted(t.request(runID: "r", Self.rate("api", "b", limit: 1, mutex: ["db"]))).isEmpty)
        #expect(t.nextToken == Self.t0.addingTimeInterval(1.1))
    }

    @Test func aRestoredTableCountsTheStoredTokens() {
        let expiry = Self.t0.addingTimeInterval(0.5)
        let waiting = AdmissionTable.Entry(
            seq: 7, runID: "r", key: "a", claims: [.rate("api", limit: 1, per: 1)], cache: nil, granted: false)
        var t = AdmissionTable(entries: [waiting], tokens: ["rate/api": [expiry]], now: Self.t0)
        #expect(t.grantWaiting().isEmpty)
        #expect(t.nextToken == expiry)
        t.now = expiry
        #expect(AdmissionTableTests.granted(t.grantWaiting()) == ["r/a"])
        #expect(t.tokens["rate/api"] == [expiry.addingTimeInterval(1.1)])
    }

    @Test func theSlackIsATenthAtMostATenthOfASecond() {
        #expect(AdmissionClaim.rate("k", limit: 1, per: 0.5).tokenLifetime == 0.55)
        #expect(AdmissionClaim.rate("k", limit: 1, per: 60).tokenLifetime == 60.1)
        #expect(AdmissionClaim.mutex("k").tokenLifetime == nil)
        #expect(AdmissionClaim.rate("a/b", limit: 1, per: 1).rateKey == "a/b")
    }

    // MARK: - Decoding

    @Test func aNodeAndAMapDecodeTheirRate() throws {
        let g = try graph(
            #"""
            {"input": {"api": "geo"}, "nodes": {"a": {"procedure": "p"},
             "n": {"procedure": "p", "rate": {"key": {"$input": "/api"}, "limit": 5, "per": "1s"}, "mutex": ["db"]},
             "m": {"map": {"over": {"$from": "a"}, "procedure": "p", "rate": {"key": {"$item": "/host"}, "limit": 2, "per": "1m"}}}}}
            """#)
        let n = try #require(g.nodes["n"]?.policies.rate)
        #expect(n.limit == 5 && n.per == 1)
        #expect(g.nodes["n"]?.policies.needsAdmission == true)
        guard case let .map(spec)? = g.nodes["m"]?.kind else {
            Issue.record("m is not a map")
            return
        }
        #expect(spec.rate?.limit == 2 && spec.rate?.per == 60)
        #expect(try Graph(plan: g.planBytes()).nodes == g.nodes, "the plan keeps both")
    }

    @Test(
        "each bad rate is one clear problem",
        arguments: [
            (#""rate": 5"#, "rate", "must be an object like"),
            (#""rate": {"limit": 5, "per": "1s"}"#, "rate/key", "is required"),
            (#""rate": {"key": "api", "per": "1s"}"#, "rate/limit", "is required: a positive integer"),
            (#""rate": {"key": "api", "limit": 0, "per": "1s"}"#, "rate/limit", "must be an integer from 1 to 1000000, found 0"),
            (#""rate": {"key": "api", "limit": 5}"#, "rate/per", "is required: a duration"),
            (#""rate": {"key": "api", "limit": 5, "per": "soon"}"#, "rate/per", "'soon' is not a duration"),
            (#""rate": {"key": "api", "limit": 5, "per": "0s"}"#, "rate/per", "must be at least 1ms"),
            (#""rate": {"key": "api", "limit": 5, "per": "1s", "burst": 2}"#, "rate/burst", "unknown field (expected one of: key, limit, per)"),
            (#""rate": {"key": [1], "limit": 5, "per": "1s"}"#, "rate/key", "must be a string, number or boolean, found array"),
            (#""rate": {"key": {"$item": ""}, "limit": 5, "per": "1s"}"#, "rate/key", "$item"),
        ])
    func badRate(_ fields: String, _ field: String, _ message: String) {
        let found = problems(AdmissionDecodingTests.node(fields))
        #expect(found.count == 1, "\(found)")
        #expect(found.first?.node == "n")
        #expect(found.first?.field.hasPrefix(field) == true, "\(found.first?.field ?? "")")
        #expect(found.first?.message.contains(message) == true, "\(found.first?.message ?? "")")
    }

    @Test func rateBelongsOnAProcedureNodeOrInAMap() {
        #expect(
            problems(
                #"{"nodes": {"a": {"procedure": "p"}, "m": {"map": {"over": {"$from": "a"}, "procedure": "p"}, "rate": {"key": "k", "limit": 1, "per": "1s"}}}}"#
            )
            .map { "\($0.field): \($0.message)" } == ["rate: cannot be used on a map node (set it on its children); use map/rate"])
        #expect(
            problems(#"{"defaults": {"rate": {"key": "k", "limit": 1, "per": "1s"}}, "nodes": {"a": {"procedure": "p"}}}"#).map(\.field) == [
                "defaults/rate"
            ])
        #expect(
            problems(
                #"{"nodes": {"a": {"procedure": "p"}, "m": {"map": {"over": {"$from": "a"}, "procedure": "p", "rate": {"key": "k", "limit": -1, "per": "1s"}}}}}"#
            )
            .map(\.field) == ["map/rate/limit"])
    }

    @Test func theBuilderWritesRate() throws {
        var g = GraphBuilder(name: "built")
        g.add(
            "call", procedure: "baton.echo",
            options: NodeOptions(rate: RateOption(key: GraphValue<String>.runInput("/api"), limit: 3, per: .milliseconds(1500))))
        g.add("fixed", procedure: "baton.echo", options: NodeOptions(rate: RateOption(key: "api", limit: 1, per: .seconds(60))))
        #expect(g.json()["nodes"]?["fixed"]?["rate"] == ["key": "api", "limit": 1, "per": "1m"])
        let built = try g.build(input: ["api": "geo"])
        #expect(built.nodes["call"]?.policies.rate == RatePolicy(key: .literal("geo"), limit: 3, per: 1.5))
    }

    // MARK: - Scheduler

    @Test func theRequestCarriesTheEvaluatedKeyAndThePriorityAndTheEventSaysWhy() throws {
        var h = Harness(
            try graph(
                #"{"input": {"api": "geo"}, "nodes": {"n": {"procedure": "p", "priority": 4, "rate": {"key": {"$input": "/api"}, "limit": 5, "per": "1s"}}}}"#
            ))
        let out = h.start()
        #expect(out.acquires == [AdmissionRequest(key: "n", claims: [.rate("geo", limit: 5, per: 1)], priority: 4)])
        #expect(h.state.nodes["n"]?.status == .waiting && h.state.nodes["n"]?.waitingFor == .admission)
        let change = out.compactMap { command -> NodeChange? in
            if case let .node(c) = command { return c }; return nil
        }.first
        #expect(change?.eventKind == .awaitingRate)
        #expect(change?.detail == JSONObject([("rate", "geo"), ("limit", 5), ("per", "1s")]))
    }

    @Test func mapChildrenTakeTheirKeyFromTheirItem() throws {
        var h = Harness(
            try graph(
                #"{"nodes": {"m": {"map": {"over": [{"h": "x"}, {"h": "y"}], "procedure": "p", "rate": {"key": {"$item": "/h"}, "limit": 1, "per": "2s"}}}}}"#
            ))
        let out = h.start()
        #expect(Set(out.acquires.map(\.claims)) == [[.rate("x", limit: 1, per: 2)], [.rate("y", limit: 1, per: 2)]])
    }

    // MARK: - A local run

    @Test func aLocalRunKeepsToTheRate() async throws {
        let registry = ProcedureRegistry.demo
        let graph = try GraphDecoder(knownProcedures: Set(registry.names)).decode(try ExampleGraphTests.load("rate.json"))
        var engine = LocalEngine(registry: registry)
        let clock = TestClock()
        engine.clock = clock
        let commands = Collected<SchedulerCommand>()
        let state = await engine.run(graph, runID: "rate-run") { commands.append($0) }
        #expect(state.status == .succeeded)
        var starts: [Date] = []
        for case let .node(change) in commands.all where change.key.hasPrefix("lookup/") && change.status == .running {
            starts.append(try #require(change.startedAt))
        }
        starts.sort()
        #expect(starts.count == 5)
        for (i, start) in starts.enumerated() where i + 2 < starts.count {
            #expect(starts[i + 2].timeIntervalSince(start) >= 1, "three starts within a second: \(starts)")
        }
    }
}
