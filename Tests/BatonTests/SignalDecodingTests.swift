import Baton
import Foundation
import Testing

@Suite("Graph format: signal nodes")
struct SignalDecodingTests {
    @Test func aSignalNodeDecodes() throws {
        let g = try graph(
            #"{"nodes": {"a": {"procedure": "p"}, "s": {"signal": "approval", "timeout": "1h", "after": ["a"], "retry": {"attempts": 2}, "when": true, "on_failure": "ignore", "dependencies": "all-finished"}}}"#
        )
        let s = try #require(g.nodes["s"])
        #expect(s.kind == .signal(SignalSpec(name: "approval")))
        #expect(s.procedure == SignalSpec.procedureName)
        #expect(s.policies.timeout == 3600)
        #expect(s.policies.retry?.attempts == 2)
        #expect(s.dependencies == ["a"])
        #expect(!s.kind.isComposite)
    }

    @Test func aSignalNodeSurvivesTheStoredPlan() throws {
        let g = try graph(#"{"nodes": {"s": {"signal": "approval"}, "g": {"group": {"nodes": {"t": {"signal": "inner"}}}}}}"#)
        let again = try Graph(plan: g.planBytes())
        #expect(again.nodes == g.nodes)
        #expect(try Graph(plan: WireFormat.encode(g)).nodes == g.nodes, "Codable writes the same")
    }

    @Test(arguments: [
        ("input", #"{"x": 1}"#, "a signal node has no input (its output is the value the signal delivers)"),
        ("procedure", #""p""#, "a node has one of procedure, group, map and signal, not both procedure and signal"),
        ("pool", #""gpu""#, "a signal node has no pool (it runs nowhere: it waits, holding no worker slot, for `baton signal`)"),
        ("priority", "3", "a signal node has no priority (it runs nowhere: it waits, holding no worker slot, for `baton signal`)"),
        (
            "repeat", #"{"until": {"select": "/x", "equals": 1}}"#,
            "a signal node has no repeat (it runs nowhere: it waits, holding no worker slot, for `baton signal`)"
        ),
        (
            "condition", #"{"procedure": "c"}"#,
            "a signal node has no condition (it runs nowhere: it waits, holding no worker slot, for `baton signal`)"
        ),
        ("mutex", #"["db"]"#, "a signal node has no mutex (it runs nowhere: it waits, holding no worker slot, for `baton signal`)"),
        ("cache", #"{"ttl": "1h"}"#, "a signal node has no cache (it runs nowhere: it waits, holding no worker slot, for `baton signal`)"),
    ])
    func refusedFields(field: String, value: String, message: String) {
        let found = problems(#"{"nodes": {"s": {"signal": "go", "\#(field)": \#(value)}}}"#)
        let at = field == "procedure" ? "signal" : field  // the second kind is the one named
        #expect(found.contains { $0.node == "s" && $0.field == at && $0.message == message }, "\(found)")
    }

    @Test(arguments: [
        (#"1"#, "must be a string naming what the node waits for, like \"approval\", found number"),
        (#""""#, "must not be empty: name what the node waits for, like \"approval\""),
        (#""a\nb""#, "must be one line of at most 200 characters"),
    ])
    func badSignalNames(value: String, message: String) {
        let found = problems(#"{"nodes": {"s": {"signal": \#(value)}}}"#)
        #expect(found.map(\.field) == ["signal"])
        #expect(found.first?.message == message)
    }

    @Test func defaultsDoNotBreakASignalNode() throws {
        let g = try graph(#"{"defaults": {"mutex": ["db"], "cache": {"ttl": "1h"}, "pool": "gpu"}, "nodes": {"s": {"signal": "go"}}}"#)
        #expect(g.nodes["s"]?.policies.needsAdmission == false)
    }

    @Test func theBuilderWritesASignalNode() throws {
        var b = GraphBuilder(name: "approval")
        let approve = b.signal("approve", name: "approval", of: Approval.self, options: NodeOptions(timeout: .seconds(3600)))
        b.add("ship", procedure: "p", input: .object(["by": approve.output(\.by).json]))
        let g = try b.build()
        #expect(g.nodes["approve"]?.kind == .signal(SignalSpec(name: "approval")))
        #expect(g.nodes["approve"]?.policies.timeout == 3600)
        #expect(g.nodes["ship"]?.dependencies == ["approve"])
    }

    @Test func theBuilderReportsAFieldASignalNodeRefuses() {
        var b = GraphBuilder(name: "approval")
        b.signal("approve", name: "approval", options: NodeOptions(pool: "gpu"))
        #expect(throws: GraphValidationError.self) { try b.build() }
    }

    struct Approval: Codable, Sendable {
        let by: String
    }

    @Test(arguments: [
        (#"{"nodes": {"s": {"procedure": "baton.signal"}}}"#, "procedure"),
        (
            #"{"nodes": {"l": {"procedure": "p", "input": {"xs": [1]}}, "m": {"map": {"over": {"$from": "l", "select": "/xs"}, "procedure": "baton.signal"}}}}"#,
            "map/procedure"
        ),
        (#"{"nodes": {"s": {"procedure": "p", "condition": {"procedure": "baton.signal"}}}}"#, "condition/procedure"),
    ])
    func baton_signalIsNoProcedure(text: String, field: String) {
        let found = problems(text)
        #expect(
            found.contains {
                $0.field == field && $0.message == "baton.signal is not a procedure; a node that waits for a signal is written {\"signal\": \"NAME\"}"
            }, "\(found)")
    }
}
