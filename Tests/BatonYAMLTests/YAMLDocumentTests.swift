import Baton
import BatonYAML
import Foundation
import Testing

@Suite("YAML graph files")
struct YAMLDocumentTests {
    static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("examples")

    func parse(_ text: String, maxDepth: Int = 64, maxBytes: Int = 64 << 20) throws(YAMLError) -> YAMLDocument {
        try YAMLDocument.parse(Array(text.utf8), maxDepth: maxDepth, maxBytes: maxBytes)
    }

    func error(_ text: String, maxDepth: Int = 64, maxBytes: Int = 64 << 20) -> YAMLError? {
        do {
            _ = try parse(text, maxDepth: maxDepth, maxBytes: maxBytes)
            return nil
        } catch {
            return error
        }
    }

    /// "int", "double" or the kind name: `==` treats 1 and 1.0 as equal.
    func representation(_ value: JSON?) -> String {
        switch value {
        case .int?: return "int"
        case .double?: return "double"
        case let other?: return other.kindName
        case nil: return "missing"
        }
    }

    @Test func scalarsKeepTheirJSONKinds() throws {
        let doc = try parse(
            """
            i: 42
            neg: -7
            hex: 0x1F
            oct: 0o17
            big: 123456789012345678901234567890
            f: 1.5
            e: 1e3
            whole: 2.0
            t: true
            f2: False
            n: null
            tilde: ~
            empty:
            yes: yes
            no: no
            on: off
            date: 2026-11-23
            quoted: "42"
            single: 'true'
            tagged: !!str 7
            """
        ).json
        #expect(doc["i"] == 42 && representation(doc["i"]) == "int")
        #expect(doc["neg"] == -7 && representation(doc["neg"]) == "int")
        #expect(doc["hex"] == 31 && doc["oct"] == 15)
        #expect(representation(doc["big"]) == "double", "too big for 64 bits, as in JSON")
        #expect(doc["f"] == 1.5 && representation(doc["f"]) == "double")
        #expect(doc["e"] == 1000 && representation(doc["e"]) == "double")
        #expect(representation(doc["whole"]) == "double")
        #expect(doc["t"] == true && doc["f2"] == false)
        #expect(doc["n"] == .some(.null) && doc["tilde"] == .some(.null) && doc["empty"] == .some(.null))
        #expect(doc["yes"] == "yes" && doc["no"] == "no" && doc["on"] == "off", "YAML 1.2: only true and false are booleans")
        #expect(doc["date"] == "2026-11-23")
        #expect(doc["quoted"] == "42" && doc["single"] == "true" && doc["tagged"] == "7")
    }

    @Test func keyOrderIsKept() throws {
        let doc = try parse("z: 1\na: 2\nm: {y: 1, b: 2}\n").json
        #expect(doc.objectValue?.keys == ["z", "a", "m"])
        #expect(doc["m"]?.objectValue?.keys == ["y", "b"])
    }

    @Test func anchorsAliasesAndMergeKeysAreResolved() throws {
        let doc = try parse(
            """
            base: &base {pool: gpu, priority: 3}
            list: &l [1, 2]
            copy: *l
            node:
              <<: *base
              priority: 5
              procedure: baton.echo
            """
        ).json
        #expect(doc["copy"] == [1, 2])
        #expect(doc["node"] == ["pool": "gpu", "priority": 5, "procedure": "baton.echo"])
        #expect(doc["node"]?.objectValue?.keys == ["pool", "priority", "procedure"])
    }

    @Test func nonStringKeysAreRefusedWithTheirLine() {
        let e = error("nodes:\n  a: 1\n  1: 2\n")
        #expect(e?.mark == YAMLMark(line: 3, column: 3))
        #expect(e?.message.hasPrefix("mapping key '1' is a number, not a string") == true)
        #expect(error("? [a, b]\n: 1\n")?.message == "a mapping key must be a string, found a sequence")
        #expect(error("true: 1\n")?.message.contains("is a boolean") == true)
    }

    @Test func tagsWithoutJSONMeaningAreRefusedWithTheirLine() {
        let binary = error("a: 1\nb: !!binary aGVsbG8=\n")
        #expect(binary?.mark?.line == 2)
        #expect(binary?.message == "the YAML tag !!binary has no JSON meaning")
        #expect(error("s: !!set {a, b}\n")?.message == "the YAML tag !!set on a mapping has no JSON meaning")
        #expect(error("x: !custom 1\n")?.message == "the YAML tag !custom has no JSON meaning")
        #expect(error("x: .inf\n")?.message == "'.inf' has no JSON meaning (JSON numbers are finite)")
        #expect(error("x: !!int abc\n")?.message == "'abc' is not an integer that fits in 64 bits")
    }

    @Test func parseErrorsHaveLineAndColumn() {
        let bad = error("nodes:\n  a: {procedure: baton.echo\n  b: 1\n")
        #expect(bad?.mark?.line != nil)
        #expect(bad?.description.hasPrefix("\(bad?.mark?.line ?? 0):") == true)
        let tabs = error("a: 1\n b: 2\n")
        #expect(tabs?.mark?.line == 2)
        let duplicate = error("a: 1\nb: 2\na: 3\n")
        #expect(duplicate?.message == "duplicate key 'a' in a mapping")
        #expect(duplicate?.mark?.line != nil)
        #expect(error("a: 1\n---\nb: 2\n")?.message.contains("but found another document") == true)
        #expect(error("")?.message == "the document is empty")
        #expect(error("a: *nothing\n")?.message.contains("undefined alias") == true)
        #expect(throws: YAMLError.self) { try YAMLDocument.parse([0x61, 0x3A, 0x20, 0xFF, 0x0A]) }
    }

    @Test func limitsBoundNestingAndAliasExpansion() {
        #expect(error("a: [[[[1]]]]\n", maxDepth: 3)?.message == "nesting deeper than 3 levels")
        #expect(error("a: [[[1]]]\n", maxDepth: 4) == nil)
        // Few aliases, each repeating a large part: the JSON's size is what stops them (nested ones: AliasExpansionTests).
        let large =
            "a: &a \"" + String(repeating: "lol", count: 20_000) + "\"\nb: [" + Array(repeating: "*a", count: 20).joined(separator: ", ") + "]\n"
        let e = error(large, maxDepth: 64, maxBytes: 1 << 20)
        #expect(e?.message.hasPrefix("the document expands to more than 1048576 bytes of JSON") == true)
        #expect(error(large, maxDepth: 64, maxBytes: 2 << 20) == nil)
    }

    @Test func problemsMapToTheLineOfTheirNodeAndField() throws {
        let doc = try parse(
            """
            name: lines
            input:
              w: 1
            nodes:
              a:
                procedure: baton.echo
                pool: 5
                input:
                  x: {$input: /nope}
              g:
                group:
                  nodes:
                    c:
                      procedure: baton.echo
            """
        )
        #expect(doc.mark(node: "a", field: "pool") == YAMLMark(line: 7, column: 5))
        #expect(doc.mark(node: "a", field: "input/x") == YAMLMark(line: 9, column: 7))
        #expect(doc.mark(node: "a", field: "procedure")?.line == 6)
        #expect(doc.mark(node: "a", field: "retry/attempts")?.line == 5, "a field not written: the node's line")
        #expect(doc.mark(node: "g/c", field: "procedure")?.line == 14)
        #expect(doc.mark(node: "g/zz", field: "procedure")?.line == 12, "a child not written: its group's nodes")
        #expect(doc.mark(node: nil, field: "input")?.line == 2)
        #expect(doc.mark(node: nil, field: "")?.line == 1)
    }

    @Test func theYAMLExampleIsTheJSONExample() throws {
        let yaml = try YAMLDocument.parse(Array(try Data(contentsOf: Self.examples.appendingPathComponent("word-count.yaml"))))
        let json = try JSONParser.parse(Array(try Data(contentsOf: Self.examples.appendingPathComponent("word-count.json"))))
        #expect(yaml.json == json)
        #expect(yaml.json["nodes"]?.objectValue?.keys == json["nodes"]?.objectValue?.keys)
        let graph = try GraphDecoder().decode(yaml.json, defaultName: "word-count", measuringInputs: true)
        #expect(graph.order == ["chunk", "count-1", "count-2", "count-3", "merge", "top", "report"])
    }

    @Test func everyYAMLExampleIsValid() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.examples.path).filter {
            $0.hasSuffix(".yaml") || $0.hasSuffix(".yml")
        }
        #expect(!names.isEmpty)
        for name in names {
            #expect(throws: Never.self, "\(name)") {
                let doc = try YAMLDocument.parse(Array(try Data(contentsOf: Self.examples.appendingPathComponent(name))))
                _ = try GraphDecoder().decode(doc.json, measuringInputs: true)
            }
        }
    }
}
