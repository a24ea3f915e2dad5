import Baton
import BatonYAML
import Foundation
import Testing

/// Nested aliases (a "billion laughs") are counted while they are read, never expanded first.
@Suite("YAML aliases")
struct AliasExpansionTests {
    /// Ten lines: `a` is nine strings, and each next anchor is a list of nine aliases of the one before,
    /// so `l9` stands for 9^10 strings. `last` is what the final line does with `l9`.
    static func laughs(last: String = "nodes: {a: {procedure: baton.echo, input: *l9}}") -> String {
        var text = "a: &a [" + Array(repeating: "\"lol\"", count: 9).joined(separator: ", ") + "]\n"
        for level in 1...9 {
            let previous = level == 1 ? "a" : "l\(level - 1)"
            text += "l\(level): &l\(level) [" + Array(repeating: "*\(previous)", count: 9).joined(separator: ", ") + "]\n"
        }
        return text + last + "\n"
    }

    /// The error `text` is refused with, and how long that took.
    func refusal(_ text: String, maxAliasedNodes: Int = 100_000) -> (error: YAMLError?, seconds: Double) {
        let clock = ContinuousClock()
        var refused: YAMLError?
        let elapsed = clock.measure {
            do { _ = try YAMLDocument.parse(Array(text.utf8), maxAliasedNodes: maxAliasedNodes) } catch { refused = error as? YAMLError }
        }
        return (refused, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    @Test("a billion laughs is refused at once, at the alias that passes the limit")
    func billionLaughsIsRefusedAtOnce() {
        let (error, seconds) = refusal(Self.laughs())
        #expect(error?.message == "the document expands to more than 100000 nodes through aliases")
        // Lines 2 to 5 add 74,718 nodes; the first alias of l4 (66,430 nodes), on line 6, passes 100,000.
        #expect(error?.mark == YAMLMark(line: 6, column: 10))
        #expect(seconds < 2, "took \(seconds) s")
    }

    @Test("aliases as mapping keys are counted too: Yams would hash each such key in full")
    func aliasesAsKeysAreCounted() {
        let (error, seconds) = refusal(Self.laughs(last: "nodes: {a: {procedure: baton.echo, input: {? *l9 : 1}}}"))
        #expect(error?.message == "the document expands to more than 100000 nodes through aliases")
        #expect(seconds < 2, "took \(seconds) s")
    }

    @Test func aliasesWithinTheLimitAreExpanded() throws {
        let thousand = "[" + Array(repeating: "1", count: 1_000).joined(separator: ", ") + "]"
        let text = "big: &big \(thousand)\ncopies: [" + Array(repeating: "*big", count: 98).joined(separator: ", ") + "]\n"
        let copies = try YAMLDocument.parse(Array(text.utf8)).json["copies"]?.arrayValue
        #expect(copies?.count == 98)
        #expect(copies?.allSatisfy { $0.arrayValue?.count == 1_000 } == true)
        // One more copy and the aliases add more than 100,000 nodes (1,001 each).
        let more = "big: &big \(thousand)\ncopies: [" + Array(repeating: "*big", count: 100).joined(separator: ", ") + "]\n"
        #expect(refusal(more).error?.mark == YAMLMark(line: 2, column: 1 + 9 + 6 * 99))
    }

    @Test("a large graph may merge its defaults into every node: ten nodes per node written")
    func mergesScaleWithTheDocument() throws {
        var text = "defaults: &d {pool: gpu, priority: 3, timeout: 5m, retry: {attempts: 3}}\nnodes:\n"
        for i in 0..<200 { text += "  n\(i): {<<: *d, procedure: baton.echo}\n" }
        // 200 merges of 11 nodes add 2,200: more than the limit of 100, less than ten times the 1,014 written.
        let doc = try YAMLDocument.parse(Array(text.utf8), maxAliasedNodes: 100)
        #expect(doc.json["nodes"]?["n199"] == ["pool": "gpu", "priority": 3, "timeout": "5m", "retry": ["attempts": 3], "procedure": "baton.echo"])

        // 14 nodes written, so 140 may be added: the 15th alias of ten nodes is one too many.
        let aliases = Array(repeating: "*a", count: 20).joined(separator: ", ")
        let (error, _) = refusal("a: &a [1, 2, 3, 4, 5, 6, 7, 8, 9]\nb: [\(aliases)]\n", maxAliasedNodes: 10)
        #expect(error?.message == "the document expands to more than 140 nodes through aliases, 10 times the nodes it writes")
        #expect(error?.mark == YAMLMark(line: 2, column: 5 + 4 * 14))
    }
}
