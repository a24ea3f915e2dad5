import Baton
import Testing

/// Procedure versions: names with `@N`, what a registry announces, and how submit plans and checks pins.
@Suite("procedure versions")
struct ProcedureVersionTests {
    struct GreetV1: Procedure {
        static let name = "acme.greet"
        struct Input: Codable, Sendable { var name: String }
        func execute(_ input: Input, context: ProcedureContext) async throws -> String { "hello \(input.name)" }
    }

    struct GreetV2: Procedure {
        static let name = "acme.greet"
        static let version = 2
        struct Input: Codable, Sendable { var first: Int }
        func execute(_ input: Input, context: ProcedureContext) async throws -> String { "hello \(input.first)" }
    }

    static func decode(
        _ text: String, known: Set<String>?, served: ServedVersions?
    ) throws(GraphValidationError) -> Graph {
        var decoder = GraphDecoder(knownProcedures: known)
        decoder.servedVersions = served
        return try decoder.decode(Array(text.utf8))
    }

    static func problems(_ text: String, known: Set<String>?, served: ServedVersions? = nil) -> [String] {
        do {
            _ = try decode(text, known: known, served: served)
            return []
        } catch { return error.problems.map(\.description) }
    }

    @Test func namesParseWithAndWithoutVersions() {
        #expect(ProcedureName(parsing: "acme.greet") == ProcedureName(base: "acme.greet", version: 1, pinned: false))
        #expect(ProcedureName(parsing: "acme.greet@2") == ProcedureName(base: "acme.greet", version: 2, pinned: true))
        #expect(ProcedureName(parsing: "acme.greet@1")?.routed == "acme.greet")
        #expect(ProcedureName(parsing: "acme.greet@12")?.routed == "acme.greet@12")
        for bad in ["acme.greet@", "acme.greet@0", "acme.greet@02", "acme.greet@x", "@2", "acme.greet@-1", "acme.greet@100000", "a@2@"] {
            #expect(ProcedureName(parsing: bad) == nil, "\(bad)")
        }
        #expect(ProcedureName.version(ofRouted: "acme.greet@3") == 3)
        #expect(ProcedureName.version(ofRouted: "baton.group") == 1)
        #expect(ProcedureName.writable(["acme.greet@2", "baton.echo"]) == ["acme.greet", "acme.greet@2", "baton.echo", "baton.echo@1"])
    }

    @Test func aRegistryServesEachVersionUnderItsRoutedName() {
        var registry = ProcedureRegistry()
        registry.register(GreetV1())
        registry.register(GreetV2())
        #expect(registry.names == ["acme.greet", "acme.greet@2"])
        #expect(registry.schema(for: "acme.greet@2")?.input != registry.schema(for: "acme.greet")?.input)
    }

    @Test func anUnpinnedNodeIsPlannedOnTheNewestVersionServedInItsPool() throws {
        let served = ServedVersions(workers: [
            (pools: ["default"], procedures: ["acme.greet", "acme.greet@2"]), (pools: ["old"], procedures: ["acme.greet"]),
            (pools: ["gpu"], procedures: ["acme.greet@3"]),
        ])
        let text = """
            {"nodes": {
              "a": {"procedure": "acme.greet", "input": {}},
              "b": {"procedure": "acme.greet", "pool": "old", "input": {}},
              "c": {"procedure": "acme.greet@1", "input": {}},
              "d": {"procedure": "acme.greet", "pool": "elsewhere", "input": {}},
              "m": {"map": {"over": [1, 2], "procedure": "acme.greet", "input": {}}},
              "g": {"group": {"nodes": {"x": {"procedure": "acme.greet", "input": {}}}},
                    "condition": {"procedure": "acme.greet", "input": {}}},
              "e": {"procedure": "baton.echo", "input": {}}
            }}
            """
        let known: Set<String> = ["acme.greet", "acme.greet@2", "acme.greet@3", "baton.echo"]
        let g = try Self.decode(text, known: known, served: served)
        #expect(g.nodes["a"]?.procedure == "acme.greet@2")
        #expect(g.nodes["b"]?.procedure == "acme.greet")
        #expect(g.nodes["c"]?.procedure == "acme.greet")  // pinned to 1: the plain routed name, not planned
        #expect(g.nodes["d"]?.procedure == "acme.greet@3")  // no worker in its pool: the newest anywhere
        #expect(g.nodes["m"]?.procedure == "acme.greet@2")
        #expect(g.nodes["g"]?.policies.condition?.procedure == "acme.greet@2")
        guard case let .group(spec)? = g.nodes["g"]?.kind else { Issue.record("not a group"); return }
        #expect(spec.nodes["g/x"]?.procedure == "acme.greet@2")
        #expect(g.nodes["e"]?.procedure == "baton.echo")
        // Without the served versions (a file checked offline, a spawned fragment), unpinned is version 1.
        let offline = try Self.decode(text, known: nil, served: nil)
        #expect(offline.nodes["a"]?.procedure == "acme.greet")
        #expect(offline.nodes["c"]?.procedure == "acme.greet")
    }

    @Test func aPinNoWorkerServesIsRefusedNamingTheServedVersions() {
        let known: Set<String> = ["acme.greet", "acme.greet@2"]
        let refused = Self.problems(#"{"nodes": {"a": {"procedure": "acme.greet@3", "input": {}}}}"#, known: known)
        #expect(
            refused == [
                "node 'a', field 'procedure': version 3 of procedure 'acme.greet' is not served (live workers serve acme.greet@1, acme.greet@2; or pass --allow-unknown-procedures)"
            ], "\(refused)")
        let onlyTwo = Self.problems(#"{"nodes": {"a": {"procedure": "acme.greet@1", "input": {}}}}"#, known: ["acme.greet@2"])
        #expect(onlyTwo.count == 1 && onlyTwo[0].contains("live workers serve acme.greet@2;"), "\(onlyTwo)")
        #expect(Self.problems(#"{"nodes": {"a": {"procedure": "acme.greet@3", "input": {}}}}"#, known: nil).isEmpty)
        let bad = Self.problems(#"{"nodes": {"a": {"procedure": "acme.greet@x", "input": {}}}}"#, known: nil)
        #expect(bad.count == 1 && bad[0].contains("'acme.greet@x' has a bad version"), "\(bad)")
        let delay = Self.problems(#"{"nodes": {"a": {"procedure": "baton.delay@2", "input": {"seconds": 1}}}}"#, known: nil)
        #expect(delay.count == 1 && delay[0].contains("baton.delay has no versions"), "\(delay)")
        let mapped = Self.problems(#"{"nodes": {"m": {"map": {"over": [1], "procedure": "acme.greet@4", "input": {}}}}}"#, known: known)
        #expect(mapped.count == 1 && mapped[0].contains("field 'map/procedure': version 4"), "\(mapped)")
    }

    @Test func theTypeCheckUsesThePlannedVersionsSchema() throws {
        var registry = ProcedureRegistry()
        registry.register(GreetV1())
        registry.register(GreetV2())
        let served = ServedVersions(everywhere: registry.names)
        let v1Input = #"{"nodes": {"a": {"procedure": "acme.greet", "input": {"name": "Ada"}}}}"#
        let planned = try Self.decode(v1Input, known: Set(registry.names), served: served)
        #expect(!TypeChecker(schemas: registry.checkedSchemas).check(planned).isEmpty)  // planned on 2, whose input differs
        let pinned = try Self.decode(
            #"{"nodes": {"a": {"procedure": "acme.greet@1", "input": {"name": "Ada"}}}}"#, known: Set(registry.names), served: served)
        #expect(TypeChecker(schemas: registry.checkedSchemas).check(pinned).isEmpty)
    }

    @Test func theBuilderPinsATypedVersionAndTakesAPinByName() throws {
        var b = GraphBuilder(name: "pins")
        b.add("new", GreetV2.self, input: .init(first: 1))
        b.add("old", procedure: "acme.greet@1", input: .literal(["name": "Ada"]))
        b.add("any", GreetV1.self, input: .init(name: "Bo"))
        let served = ServedVersions(everywhere: ["acme.greet", "acme.greet@2"])
        let g = try b.build(knownProcedures: ["acme.greet", "acme.greet@2"], servedVersions: served)
        #expect(g.nodes["new"]?.procedure == "acme.greet@2")
        #expect(g.nodes["old"]?.procedure == "acme.greet")
        #expect(g.nodes["any"]?.procedure == "acme.greet@2")
        #expect(b.json()["nodes"]?["new"]?["procedure"] == "acme.greet@2")
    }
}
