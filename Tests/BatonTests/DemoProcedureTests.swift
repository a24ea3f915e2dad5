import Baton
import BatonDemo
import Testing

@Suite("Demo procedures")
struct DemoProcedureTests {
    static func output(_ procedure: String, _ input: JSON, sourceLocation: SourceLocation = #_sourceLocation) async -> JSON? {
        let result = await runAttempt(procedure, input, registry: .demo)
        guard case let .succeeded(output) = result.outcome else {
            Issue.record("\(procedure) failed: \(result.outcome)", sourceLocation: sourceLocation)
            return nil
        }
        return output
    }

    @Test(
        "chunk-text splits at word boundaries into `parts` pieces",
        arguments: [
            ("a b c d e", 2, ["a b c", "d e"]),
            ("one  two\tthree\nfour", 2, ["one two", "three four"]),
            ("a b c d e", 4, ["a b", "c d", "e", ""]),
            ("solo", 1, ["solo"]),
            ("", 3, ["", "", ""]),
        ])
    func chunkText(text: String, parts: Int, chunks: [String]) async {
        let out = await Self.output("demo.chunk-text", ["text": .string(text), "parts": .int(Int64(parts))])
        #expect(out == ["chunks": .array(chunks.map { .string($0) })])
    }

    @Test func chunkTextNeedsAtLeastOnePart() async {
        let result = await runAttempt("demo.chunk-text", ["text": "a", "parts": 0], registry: .demo)
        #expect(result.outcome == .failed(message: "parts must be at least 1", permanent: true))
    }

    @Test func countWords() async {
        let out = await Self.output("demo.count-words", ["text": "Don't stop, don't STOP! 'quoted' 42 -- x"])
        #expect(out == ["counts": ["don't": 2, "stop": 2, "quoted": 1, "42": 1, "x": 1], "total": 7])
        #expect(await Self.output("demo.count-words", ["text": " \n "]) == ["counts": [:], "total": 0])
    }

    @Test func mergeCounts() async {
        let out = await Self.output("demo.merge-counts", ["counts": [["a": 1, "b": 2], [:], ["b": 3, "c": 4]]])
        #expect(out == ["counts": ["a": 1, "b": 5, "c": 4], "total": 10])
    }

    @Test func topWordsBreaksTiesByWord() async {
        let counts: JSON = ["pear": 2, "apple": 2, "fig": 5, "kiwi": 1]
        #expect(
            await Self.output("demo.top-words", ["counts": counts, "n": 3]) == [
                ["word": "fig", "count": 5], ["word": "apple", "count": 2], ["word": "pear", "count": 2],
            ])
        #expect(await Self.output("demo.top-words", ["counts": counts, "n": 0]) == [])
        #expect(await Self.output("demo.top-words", ["counts": counts, "n": -3]) == [])
        #expect(await Self.output("demo.top-words", ["counts": counts, "n": 10])?.arrayValue?.count == 4)
    }

    @Test func format() async {
        let out = await Self.output(
            "demo.format",
            [
                "template": "{name} has {n} items: {list} {missing}",
                "values": ["name": "Ada", "n": 3, "list": [1, "x"]],
            ])
        #expect(out == ["text": #"Ada has 3 items: [1,"x"] {missing}"#])
    }

    @Test func multiplyAndDivide() async {
        #expect(await Self.output("demo.multiply", ["values": [2, 3, 7]]) == 42)
        #expect(await Self.output("demo.multiply", ["values": []]) == 1)
        #expect(await Self.output("demo.multiply", ["values": [0.5, 3]]) == 1.5)
        #expect(await Self.output("demo.divide", ["dividend": 21, "divisor": 2]) == 10.5)
        let byZero = await runAttempt("demo.divide", ["dividend": 1, "divisor": 0], registry: .demo)
        #expect(byZero.outcome == .failed(message: "division by zero", permanent: true))
    }
}
