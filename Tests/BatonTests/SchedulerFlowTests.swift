import Baton
import Testing

@Suite("RunState: dependencies and injection")
struct SchedulerFlowTests {
    @Test func chain() throws {
        let g = try graph(
            #"""
            {"nodes": {
              "a": {"procedure": "baton.echo", "input": {"seed": 1}},
              "b": {"procedure": "demo.step", "input": {"$from": "a"}, "pool": "gpu", "priority": 7},
              "c": {"procedure": "demo.step", "input": {"v": {"$from": "b", "select": "/x"}}}}}
            """#)
        var h = Harness(g, runID: "run-chain")
        #expect(h.state.status == .pending)

        let started = h.start()
        #expect(started.runStatuses == [.running])
        if case .runStatus(.running, nil)? = started.first {} else { Issue.record("the run status must come first: \(started)") }
        #expect(started.nodeChanges == [NodeChange(key: "a", status: .queued, attempt: 1, input: ["seed": 1])])
        #expect(
            started.dispatches == [
                TaskDispatch(
                    runID: "run-chain", key: "a", attempt: 1, procedure: "baton.echo",
                    input: ["seed": 1], pool: "default", priority: 0)
            ])
        #expect(h.state.status == .running)
        #expect(h.state.nodes["a"] == NodeState(status: .queued, attempt: 1, input: ["seed": 1]))
        #expect(h.state.nodes["b"]?.status == .pending)
        #expect(h.state.nodes["c"]?.status == .pending)

        let afterA = h.succeed("a", ["x": 5])
        #expect(
            afterA.nodeChanges == [
                NodeChange(key: "a", status: .running, attempt: 1, worker: "w"),  // implied: no "started" report came first
                NodeChange(key: "a", status: .succeeded, attempt: 1, output: ["x": 5], worker: "w"),
                NodeChange(key: "b", status: .queued, attempt: 1, input: ["x": 5]),
            ])
        #expect(
            afterA.dispatches == [
                TaskDispatch(
                    runID: "run-chain", key: "b", attempt: 1, procedure: "demo.step",
                    input: ["x": 5], pool: "gpu", priority: 7)
            ])
        #expect(afterA.runStatuses.isEmpty)

        let afterB = h.succeed("b", ["x": 7, "y": 0])
        #expect(afterB.dispatches.map(\.key) == ["c"])
        #expect(afterB.dispatches.first?.input == ["v": 7])

        let afterC = h.succeed("c", "done")
        #expect(afterC.dispatches.isEmpty)
        #expect(afterC.runStatuses == [.succeeded])
        #expect(afterC.runErrors == [nil])
        #expect(h.state.status == .succeeded)
        #expect(h.state.error == nil)
        #expect(h.state.nodes["a"]?.output == ["x": 5])
        #expect(h.state.nodes["c"] == NodeState(status: .succeeded, attempt: 1, input: ["v": 7], output: "done", worker: "w"))
        #expect(h.state.counts == [.succeeded: 3])
    }

    @Test func diamond() throws {
        let g = try graph(
            #"""
            {"nodes": {
              "a": {"procedure": "p"},
              "b": {"procedure": "p", "input": {"$from": "a", "select": "/left"}},
              "c": {"procedure": "p", "input": {"$from": "a", "select": "/right"}},
              "d": {"procedure": "p", "input": {"l": {"$from": "b"}, "r": {"$from": "c"}}}}}
            """#)
        var h = Harness(g)
        #expect(h.start().dispatches.map(\.key) == ["a"])
        let fanned = h.succeed("a", ["left": 1, "right": 2])
        #expect(Set(fanned.dispatches.map(\.key)) == ["b", "c"])
        #expect(fanned.dispatches.first { $0.key == "b" }?.input == 1)
        #expect(fanned.dispatches.first { $0.key == "c" }?.input == 2)
        #expect(h.succeed("c", "C").dispatches.isEmpty)
        #expect(h.state.nodes["d"]?.status == .pending)
        let joined = h.succeed("b", "B")
        #expect(joined.dispatches.map(\.key) == ["d"])
        #expect(joined.dispatches.first?.input == ["l": "B", "r": "C"])
        #expect(h.succeed("d", nil).runStatuses == [.succeeded])
    }

    @Test func wideFanOutIntoAJoin() throws {
        let n = 1_000
        var members = [#""src": {"procedure": "p", "input": {"size": \#(n)}}"#]
        for i in 0..<n {
            members.append(#""w\#(i)": {"procedure": "p", "input": {"n": \#(i), "base": {"$from": "src", "select": "/base"}}}"#)
        }
        let parts = (0..<n).map { #"{"$from": "w\#($0)"}"# }.joined(separator: ",")
        members.append(#""join": {"procedure": "p", "input": {"parts": [\#(parts)]}}"#)
        var h = Harness(try graph(#"{"nodes": {\#(members.joined(separator: ","))}}"#))

        #expect(h.start().dispatches.map(\.key) == ["src"])
        let fanned = h.succeed("src", ["base": 100]).dispatches
        #expect(fanned.count == n)
        #expect(fanned.map(\.key) == (0..<n).map { "w\($0)" }, "dispatched in graph order")
        for task in fanned {
            let i = Int(task.key.dropFirst())!
            #expect(task.input == ["n": .int(Int64(i)), "base": 100])
            #expect(task.attempt == 1)
        }

        // Finish the workers in a scrambled order; only the last one releases the join.
        var joinDispatches: [TaskDispatch] = []
        for step in 0..<n {
            let i = (step * 7) % n
            let dispatched = h.succeed("w\(i)", .int(Int64(100 + 2 * i))).dispatches
            if step < n - 1 { #expect(dispatched.isEmpty) }
            joinDispatches += dispatched
        }
        #expect(joinDispatches.map(\.key) == ["join"])
        let expectedParts = JSON.array((0..<n).map { .int(Int64(100 + 2 * $0)) })
        #expect(joinDispatches.first?.input == ["parts": expectedParts])
        #expect(h.succeed("join", "ok").runStatuses == [.succeeded])
        #expect(h.state.counts == [.succeeded: n + 2])
    }

    @Test func nestedSelectionsAreInjected() throws {
        let g = try graph(
            #"""
            {"nodes": {
              "a": {"procedure": "p"},
              "b": {"procedure": "p", "input": {
                 "first": {"$from": "a", "select": "/items/0/name"},
                 "tag": {"$from": "a", "select": "/items/0/tags/1"},
                 "escaped": {"$from": "a", "select": "/a~1b/m~0n"},
                 "whole": {"$from": "a"},
                 "list": [{"$from": "a", "select": "/items/0/tags/0"}, "literal", {"k": {"$from": "a", "select": "/items/1"}}],
                 "n": 3}}}}
            """#)
        var h = Harness(g)
        h.start()
        let output: JSON = ["items": [["name": "x", "tags": ["p", "q"]], nil], "a/b": ["m~n": 3.5]]
        let dispatched = h.succeed("a", output).dispatches
        let task = try #require(dispatched.first)
        #expect(dispatched.count == 1)
        let expected: JSON = [
            "first": "x", "tag": "q", "escaped": 3.5, "whole": output,
            "list": ["p", "literal", ["k": nil]], "n": 3,
        ]
        #expect(task.input == expected)
        #expect(task.input.objectValue?.keys == ["first", "tag", "escaped", "whole", "list", "n"])
        #expect(h.state.nodes["b"]?.input == expected)
    }

    @Test func readyNodesAreDispatchedInGraphOrder() throws {
        let g = try graph(#"{"nodes": {"m": {"procedure": "p"}, "c": {"procedure": "p"}, "x": {"procedure": "p"}, "a": {"procedure": "p"}}}"#)
        var h = Harness(g)
        let commands = h.start()
        #expect(commands.dispatches.map(\.key) == ["m", "c", "x", "a"])
        #expect(commands.nodeChanges.map(\.key) == ["m", "c", "x", "a"])
    }

    @Test func afterOrdersWithoutInjecting() throws {
        let g = try graph(
            #"""
            {"nodes": {
              "a": {"procedure": "p", "input": {"v": "a"}},
              "b": {"procedure": "p", "input": {"v": "b"}, "after": ["a"]},
              "c": {"procedure": "p", "input": {"v": "c"}}}}
            """#)
        var h = Harness(g)
        #expect(Set(h.start().dispatches.map(\.key)) == ["a", "c"])
        #expect(h.succeed("c", 3).dispatches.isEmpty)
        let released = h.succeed("a", ["big": "output"]).dispatches
        #expect(released.map(\.key) == ["b"])
        #expect(released.first?.input == ["v": "b"])
    }

    @Test func computesThroughASimulatedWorker() throws {
        // ((1 + 2) * 4) + (1 + 2) with a worker simulated here: "sum" adds, "product" multiplies.
        let g = try graph(
            #"""
            {"nodes": {
              "three": {"procedure": "sum", "input": {"values": [1, 2]}},
              "twelve": {"procedure": "product", "input": {"values": [{"$from": "three"}, 4]}},
              "fifteen": {"procedure": "sum", "input": {"values": [{"$from": "twelve"}, {"$from": "three"}]}}}}
            """#)
        var h = Harness(g)
        h.runToEnd { task in
            let values = task.input["values"]?.arrayValue?.compactMap(\.intValue) ?? []
            return .succeeded(.int(Int64(task.procedure == "sum" ? values.reduce(0, +) : values.reduce(1, *))))
        }
        #expect(h.state.status == .succeeded)
        #expect(h.state.nodes["fifteen"]?.output == 15)
        #expect(h.state.nodes["twelve"]?.input == ["values": [3, 4]])
    }

    @Test func longChainRunsWithoutRecursion() throws {
        let n = 10_000
        var members = [#""n0": {"procedure": "p", "input": 0}"#]
        for i in 1..<n { members.append(#""n\#(i)": {"procedure": "p", "input": {"$from": "n\#(i - 1)"}}"#) }
        var h = Harness(try graph(#"{"nodes": {\#(members.joined(separator: ","))}}"#))
        var dispatched = 0
        h.runToEnd { task in
            dispatched += 1
            return .succeeded(.int((task.input.intValue.map(Int64.init) ?? -1) + 1))
        }
        #expect(dispatched == n)
        #expect(h.state.status == .succeeded)
        #expect(h.state.nodes["n\(n - 1)"]?.output == .int(Int64(n)))
    }
}
