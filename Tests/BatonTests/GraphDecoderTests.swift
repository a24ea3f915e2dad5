import Baton
import Testing

@Suite("GraphDecoder: valid graphs")
struct GraphDecoderTests {
    /// The example graph of the spec, without the fields this version refuses (retry, timeout).
    static let specExample = #"""
        {
          "name": "kitten-thumbnails",
          "defaults": { "pool": "default" },
          "nodes": {
            "read":   { "procedure": "demo.read-file", "input": { "path": "kitten.png" } },
            "resize": { "procedure": "demo.resize",
                        "input": { "width": 100, "image": { "$from": "read", "select": "/bytes" } } },
            "meta":   { "procedure": "demo.exif", "input": { "$from": "read" } },
            "save":   { "procedure": "demo.write-file",
                        "input": { "path": "thumbs/kitten.png", "data": { "$from": "resize" } },
                        "after": ["meta"] }
          }
        }
        """#

    @Test func specExampleDecodes() throws {
        let g = try graph(Self.specExample)
        #expect(g.name == "kitten-thumbnails")
        #expect(g.order == ["read", "resize", "meta", "save"])
        #expect(Set(g.nodes.keys) == ["read", "resize", "meta", "save"])
        #expect(g.source == (try JSONParser.parse(Self.specExample)))

        let read = try #require(g.nodes["read"])
        #expect(read.key == "read")
        #expect(read.procedure == "demo.read-file")
        #expect(read.dependencies.isEmpty)
        #expect(read.input == .literal(["path": "kitten.png"]))

        let resize = try #require(g.nodes["resize"])
        #expect(resize.dependencies == ["read"])
        #expect(resize.input.references == [Reference(node: "read", select: JSONPointer(tokens: ["bytes"]))])

        let meta = try #require(g.nodes["meta"])
        #expect(meta.input == .reference(Reference(node: "read")))

        let save = try #require(g.nodes["save"])
        #expect(save.after == ["meta"])
        // References first, then `after`.
        #expect(save.dependencies == ["resize", "meta"])

        let dependents = g.dependents()
        #expect(dependents["read"] == ["resize", "meta"])
        #expect(dependents["resize"] == ["save"])
        #expect(dependents["meta"] == ["save"])
        #expect(dependents["save"] == nil)
        for node in g.nodes.values {
            #expect(node.pool == "default")
            #expect(node.priority == 0)
        }
    }

    @Test func specExampleWithKnownProcedures() throws {
        let known: Set<String> = ["demo.read-file", "demo.resize", "demo.exif", "demo.write-file"]
        #expect(try graph(Self.specExample, knownProcedures: known).order.count == 4)
    }

    @Test func defaultsAndOverrides() throws {
        let g = try graph(
            #"""
            {"defaults": {"pool": "gpu", "priority": 3},
             "nodes": {"a": {"procedure": "p"},
                       "b": {"procedure": "p", "pool": "cpu-2", "priority": 9},
                       "c": {"procedure": "p", "priority": 0.0e0}}}
            """#)
        #expect(g.nodes["a"]?.pool == "gpu")
        #expect(g.nodes["a"]?.priority == 3)
        #expect(g.nodes["b"]?.pool == "cpu-2")
        #expect(g.nodes["b"]?.priority == 9)
        #expect(g.nodes["c"]?.pool == "gpu")
        #expect(g.nodes["c"]?.priority == 0)
    }

    @Test func nameDefaultsWhenMissing() throws {
        let bytes = Array(#"{"description": "free text", "nodes": {"a": {"procedure": "p"}}}"#.utf8)
        #expect(try GraphDecoder().decode(bytes).name == "unnamed")
        #expect(try GraphDecoder().decode(bytes, defaultName: "file.json").name == "file.json")
    }

    @Test func missingInputIsAnEmptyObject() throws {
        let g = try graph(#"{"nodes": {"a": {"procedure": "p"}}}"#)
        #expect(g.nodes["a"]?.input == .literal([:]))
    }

    @Test func literalInputsStayLiteral() throws {
        let input = #"{"list": [1, {"deep": [true, null, {"x": "y"}]}], "select": "/not-a-ref", "from": "a"}"#
        let g = try graph(#"{"nodes": {"a": {"procedure": "p", "input": \#(input)}}}"#)
        #expect(g.nodes["a"]?.input == .literal(try JSONParser.parse(input)))
        #expect(g.nodes["a"]?.input.references == [])
    }

    @Test func referencesAnywhereMakeDependencies() throws {
        let g = try graph(
            #"""
            {"nodes": {
              "a": {"procedure": "p"}, "b": {"procedure": "p"}, "c": {"procedure": "p"},
              "d": {"procedure": "p",
                    "input": {"x": [1, {"y": {"$from": "b", "select": "/k"}}], "z": {"$from": "a"},
                              "again": {"$from": "b"}},
                    "after": ["c", "a", "c"]}}}
            """#)
        let d = try #require(g.nodes["d"])
        #expect(d.input.references.map(\.node) == ["b", "a", "b"])
        #expect(d.dependencies == ["b", "a", "c"])
        #expect(g.dependents()["b"] == ["d"])
    }

    @Test func deepChainOf10000Nodes() throws {
        let count = 10_000
        var members: [String] = [#""n0": {"procedure": "baton.echo", "input": 0}"#]
        for i in 1..<count {
            members.append(#""n\#(i)": {"procedure": "baton.echo", "input": {"prev": {"$from": "n\#(i - 1)"}}}"#)
        }
        let g = try graph(#"{"nodes": {\#(members.joined(separator: ",\n"))}}"#)
        #expect(g.order.count == count)
        #expect(g.order.first == "n0")
        #expect(g.order.last == "n\(count - 1)")
        #expect(g.nodes["n\(count - 1)"]?.dependencies == ["n\(count - 2)"])
        #expect(g.dependents()["n0"] == ["n1"])
    }

    @Test func deepAfterChainOf10000NodesInReverseOrder() throws {
        // Listed last-first, so the cycle search must walk the whole chain from the first key.
        let count = 10_000
        var members: [String] = []
        for i in stride(from: count - 1, through: 1, by: -1) {
            members.append(#""n\#(i)": {"procedure": "p", "after": ["n\#(i - 1)"]}"#)
        }
        members.append(#""n0": {"procedure": "p"}"#)
        let g = try graph(#"{"nodes": {\#(members.joined(separator: ","))}}"#)
        #expect(g.order.count == count)
        #expect(g.nodes["n5000"]?.after == ["n4999"])
    }

    @Test func reorderedKeepsNodesAndMovesKeys() throws {
        let g = try graph(#"{"nodes": {"a": {"procedure": "p"}, "b": {"procedure": "p", "after": ["a"]}, "c": {"procedure": "p"}}}"#)
        let r = g.reordered(["c", "ghost", "a"])
        #expect(r.order == ["c", "a", "b"])
        #expect(r.nodes["b"]?.dependencies == ["a"])
        #expect(r.name == g.name)
        #expect(r.dependents()["a"] == ["b"])
    }
}
