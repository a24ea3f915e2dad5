import Baton
import Testing

@Suite("GraphDecoder: cycles")
struct GraphCycleTests {
    /// Builds a graph from `edges` (node -> the nodes it depends on), alternating
    /// `$from` references and `after` so that both kinds of dependency are used.
    static func graphText(_ nodes: [(String, [String])]) -> String {
        let members = nodes.enumerated().map { index, entry in
            let (key, deps) = entry
            let refs = deps.enumerated().filter { ($0.offset + index) % 2 == 0 }.map { #"{"$from": "\#($0.element)"}"# }
            let after = deps.enumerated().filter { ($0.offset + index) % 2 == 1 }.map { quoted($0.element) }
            return #""\#(key)": {"procedure": "p", "input": [\#(refs.joined(separator: ","))], "after": [\#(after.joined(separator: ","))]}"#
        }
        return #"{"nodes": {\#(members.joined(separator: ","))}}"#
    }

    /// Checks that the graph is rejected with one cycle problem whose path is a
    /// real cycle of the graph made of exactly `members`.
    static func expectCycle(
        _ nodes: [(String, [String])], members: Set<String>,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let found = problems(graphText(nodes))
        #expect(found.count == 1, "\(found)", sourceLocation: sourceLocation)
        guard let p = found.first else { return }
        let prefix = "dependency cycle: "
        #expect(p.message.hasPrefix(prefix), sourceLocation: sourceLocation)
        let path = p.message.dropFirst(prefix.count).components(separatedBy: " -> ")
        #expect(path.count == members.count + 1, "path \(path)", sourceLocation: sourceLocation)
        #expect(path.first == path.last, sourceLocation: sourceLocation)
        #expect(Set(path) == members, sourceLocation: sourceLocation)
        #expect(p.node == path.first, sourceLocation: sourceLocation)
        #expect(p.field == "", sourceLocation: sourceLocation)
        let edges = Dictionary(uniqueKeysWithValues: nodes.map { ($0.0, Set($0.1)) })
        for (from, to) in zip(path, path.dropFirst()) {
            #expect(edges[from]?.contains(to) == true, "\(from) does not depend on \(to)", sourceLocation: sourceLocation)
        }
    }

    @Test func twoNodes() {
        Self.expectCycle([("a", ["b"]), ("b", ["a"])], members: ["a", "b"])
    }

    @Test func twoNodesBothByReference() {
        let found = problems(#"{"nodes": {"a": {"procedure": "p", "input": {"$from": "b"}}, "b": {"procedure": "p", "input": {"$from": "a"}}}}"#)
        #expect(found.count == 1)
        #expect(found.first?.message.hasPrefix("dependency cycle: ") == true)
    }

    @Test func threeNodes() {
        Self.expectCycle([("a", ["c"]), ("b", ["a"]), ("c", ["b"])], members: ["a", "b", "c"])
    }

    @Test func cycleBehindAnEntryPath() {
        // x -> y -> c1 -> c2 -> c3 -> c1: the path names only the cycle.
        Self.expectCycle(
            [("x", ["y"]), ("y", ["c1"]), ("c1", ["c2"]), ("c2", ["c3"]), ("c3", ["c1"]), ("free", [])],
            members: ["c1", "c2", "c3"])
    }

    @Test func cycleReachedAfterAcyclicParts() {
        // A diamond explored first must not be taken for a cycle; the real one comes later.
        Self.expectCycle(
            [
                ("top", ["l", "r"]), ("l", ["base"]), ("r", ["base"]), ("base", []),
                ("p", ["q", "base"]), ("q", ["s"]), ("s", ["p"]),
            ],
            members: ["p", "q", "s"])
    }

    @Test func longChainClosingOnItself() {
        let n = 5_000
        let nodes = (0..<n).map { ("k\($0)", ["k\(($0 + 1) % n)"]) }
        Self.expectCycle(nodes, members: Set(nodes.map(\.0)))
    }

    @Test func diamondsAreNotCycles() throws {
        let g = try graph(Self.graphText([("d", ["b", "c"]), ("b", ["a"]), ("c", ["a"]), ("a", []), ("e", ["d", "a", "b"])]))
        #expect(g.order == ["d", "b", "c", "a", "e"])
    }
}
