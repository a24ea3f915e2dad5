import Baton
import Foundation
import Testing

@Suite("RunState: progress and log events")
struct ProgressLogTests {
    @Test func progressAndLogLinesBecomeEvents() throws {
        var h = Harness(try graph(#"{"nodes": {"a": {"procedure": "p"}}}"#))
        h.start()
        h.started("a")
        let p = h.send(.progress(key: "a", attempt: 1, fraction: 0.25, message: "a quarter"))
        #expect(p.nodeChanges.isEmpty)
        #expect(p.events.count == 1)
        #expect(p.events.first?.key == "a")
        #expect(p.events.first?.kind == "progress")
        #expect(p.events.first?.detail == ["attempt": 1, "fraction": 0.25, "message": "a quarter"])
        let bare = h.send(.progress(key: "a", attempt: 1, fraction: 1, message: nil))
        #expect(bare.events.first?.detail == ["attempt": 1, "fraction": 1.0])
        let l = h.send(.log(key: "a", attempt: 1, message: "hello"))
        #expect(l.events.first?.kind == "log")
        #expect(l.events.first?.detail == ["attempt": 1, "message": "hello"])
        #expect(h.state.nodes["a"]?.logged == 3)
    }

    @Test func aQueuedAttemptMayReportToo() throws {
        var h = Harness(try graph(#"{"nodes": {"a": {"procedure": "p"}}}"#))
        h.start()
        #expect(h.send(.log(key: "a", attempt: 1, message: "early")).events.count == 1)
    }

    @Test func longLinesAreCut() throws {
        var h = Harness(try graph(#"{"nodes": {"a": {"procedure": "p"}}}"#))
        h.start()
        let long = String(repeating: "é", count: RunState.logLineLimit + 500)
        let l = h.send(.log(key: "a", attempt: 1, message: long))
        #expect(l.events.first?.detail["message"]?.stringValue == String(repeating: "é", count: 2_000))
        let p = h.send(.progress(key: "a", attempt: 1, fraction: 0.5, message: long))
        #expect(p.events.first?.detail["message"]?.stringValue?.count == 2_000)
    }

    @Test func eventsArePerNodeAndBounded() throws {
        #expect(RunState.logLimit == 200)
        var h = Harness(try graph(#"{"nodes": {"a": {"procedure": "p"}, "b": {"procedure": "p"}}}"#))
        h.start()
        var kept = 0
        for i in 0..<RunState.logLimit {
            let out =
                i % 2 == 0
                ? h.send(.log(key: "a", attempt: 1, message: "line \(i)"))
                : h.send(.progress(key: "a", attempt: 1, fraction: Double(i) / 1000, message: nil))
            kept += out.events.filter { $0.kind == "log" || $0.kind == "progress" }.count
        }
        #expect(kept == 200)
        let over = h.send(.log(key: "a", attempt: 1, message: "one too many"))
        #expect(over.events.map(\.kind) == ["log_limit"])
        #expect(over.events.first?.detail["attempt"] == 1)
        #expect(over.events.first?.detail["message"]?.stringValue?.contains("200") == true)
        for _ in 0..<50 {
            #expect(h.send(.log(key: "a", attempt: 1, message: "dropped")).isEmpty)
            #expect(h.send(.progress(key: "a", attempt: 1, fraction: 0.9, message: nil)).isEmpty)
        }
        #expect(h.log.events.filter { $0.key == "a" && $0.kind == "log_limit" }.count == 1)
        // Another node has its own allowance.
        #expect(h.send(.log(key: "b", attempt: 1, message: "mine")).events.map(\.kind) == ["log"])
        // The bound survives a restart: the count is in the bookkeeping.
        var resumed = Harness(state: try rebuilt(h.state))
        #expect(resumed.state.nodes["a"]?.logged == 201)
        #expect(resumed.send(.log(key: "a", attempt: 1, message: "still dropped")).isEmpty)
    }

    @Test func theBoundCoversEveryAttemptOfTheNode() throws {
        var h = Harness(try graph(#"{"nodes": {"a": {"procedure": "p", "retry": {"attempts": 2}}}}"#))
        h.start()
        for _ in 0..<150 { h.send(.log(key: "a", attempt: 1, message: "x")) }
        h.fail("a", "again", permanent: false)
        h.advance(0)
        var kept = 0
        for _ in 0..<100 { kept += h.send(.log(key: "a", attempt: 2, message: "y")).events.filter { $0.kind == "log" }.count }
        #expect(kept == 50)
    }

    @Test func eventsForOtherAttemptsOrNodesNotOutAreDropped() throws {
        var h = Harness(
            try graph(
                #"""
                {"nodes": {"a": {"procedure": "p"}, "b": {"procedure": "p", "after": ["a"]}}}
                """#))
        h.start()
        #expect(h.send(.log(key: "a", attempt: 2, message: "wrong attempt")).isEmpty)
        #expect(h.send(.log(key: "b", attempt: 0, message: "pending")).isEmpty)
        #expect(h.send(.log(key: "b", attempt: 1, message: "pending")).isEmpty)
        #expect(h.send(.log(key: "zzz", attempt: 1, message: "unknown")).isEmpty)
        h.succeed("a", 1)
        #expect(h.send(.progress(key: "a", attempt: 1, fraction: 1, message: "after the end")).isEmpty)
        #expect(h.state.nodes["a"]?.logged == 0)
    }
}
