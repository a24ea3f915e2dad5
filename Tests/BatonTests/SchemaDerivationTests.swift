import Baton
import BatonDemo
import Foundation
import Testing

@Suite("Schemas derived from Codable types")
struct SchemaDerivationTests {
    struct Plain: Codable { let name: String; let count: Int; let ratio: Double; let on: Bool }
    struct WithOptionals: Codable { let needed: Int; let maybe: String?; let list: [Int?] }
    struct Inner: Codable { let x: Int }
    struct Outer: Codable { let inner: Inner; let inners: [Inner]; let table: [String: Inner]; let any: JSON }
    enum Colour: String, Codable, CaseIterable { case red, green }
    struct WithEnum: Codable { let colour: Colour; let colours: [Colour] }
    struct Renamed: Codable {
        let someField: Int
        enum CodingKeys: String, CodingKey { case someField = "some_field" }
    }
    final class Tree: Codable { let label: String; let children: [Tree]; init() { label = ""; children = [] } }
    struct Picky: Codable {
        let n: Int
        init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            n = try c.decode(Int.self, forKey: .n)
            guard n > 0 else { throw DecodingError.dataCorruptedError(forKey: .n, in: c, debugDescription: "must be positive") }
        }
        enum CodingKeys: String, CodingKey { case n }
    }
    struct Foundationish: Codable { let at: Date; let link: URL; let blob: Data; let id: UUID }
    struct Conditional: Codable {
        let a: Int
        let b: String
        init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            a = try c.decode(Int.self, forKey: .a)
            b = c.contains(.b) ? try c.decode(String.self, forKey: .b) : ""
        }
        enum CodingKeys: String, CodingKey { case a, b }
    }

    @Test func scalarsInAStruct() {
        #expect(
            TypeSchema.derived(from: Plain.self)
                == .object([
                    SchemaProperty("name", .string), SchemaProperty("count", .integer), SchemaProperty("ratio", .number),
                    SchemaProperty("on", .boolean),
                ]))
    }

    @Test func optionalsAreOptionalMembersAndNullableElements() {
        #expect(
            TypeSchema.derived(from: WithOptionals.self)
                == .object([
                    SchemaProperty("needed", .integer), SchemaProperty("maybe", .string, required: false),
                    SchemaProperty("list", .array(items: .nullable(.integer))),
                ]))
    }

    @Test func nestedArraysDictionariesAndJSON() {
        let inner = TypeSchema.object([SchemaProperty("x", .integer)])
        #expect(
            TypeSchema.derived(from: Outer.self)
                == .object([
                    SchemaProperty("inner", inner), SchemaProperty("inners", .array(items: inner)),
                    SchemaProperty("table", .dictionary(of: inner)), SchemaProperty("any", .any),
                ]))
        #expect(TypeSchema.derived(from: JSON.self) == .any)
        #expect(TypeSchema.derived(from: [[String]].self) == .array(items: .array(items: .string)))
    }

    @Test func stringEnumsListTheirValues() {
        let colour = TypeSchema.string(values: ["red", "green"])
        #expect(
            TypeSchema.derived(from: WithEnum.self)
                == .object([SchemaProperty("colour", colour), SchemaProperty("colours", .array(items: colour))]))
    }

    @Test func codingKeysNameTheMembers() {
        #expect(TypeSchema.derived(from: Renamed.self) == .object([SchemaProperty("some_field", .integer)]))
    }

    @Test func recursiveTypesStopAtTheDepthLimit() {
        guard case let .object(properties, _) = TypeSchema.derived(from: Tree.self) else {
            Issue.record("not an object")
            return
        }
        #expect(properties.map(\.name) == ["children", "label"])
    }

    @Test func aTypeThatRefusesTheProbeIsAny() {
        #expect(TypeSchema.derived(from: Picky.self) == .any)
        // ...but an optional or array of it leaves the rest of the shape intact.
        struct Holder: Codable { let picky: Picky?; let n: Int }
        #expect(
            TypeSchema.derived(from: Holder.self)
                == .object([SchemaProperty("picky", .any, required: false), SchemaProperty("n", .integer)]))
    }

    @Test func foundationTypesReadAsJSONDecoderReadsThem() {
        #expect(
            TypeSchema.derived(from: Foundationish.self)
                == .object([
                    SchemaProperty("at", .number), SchemaProperty("link", .string), SchemaProperty("blob", .string),
                    SchemaProperty("id", .string),
                ]))
    }

    @Test func membersReadAfterContainsAreOptional() {
        #expect(
            TypeSchema.derived(from: Conditional.self)
                == .object([SchemaProperty("a", .integer), SchemaProperty("b", .string, required: false)]))
    }

    @Test func builtInProcedures() {
        let r = ProcedureRegistry.builtIn
        #expect(r.schema(for: "baton.echo") == ProcedureSchema(input: .any, output: .any))
        #expect(r.schema(for: "baton.add")?.input == .object([SchemaProperty("values", .array(items: .number))]))
        #expect(
            r.schema(for: "baton.sleep")
                == ProcedureSchema(
                    input: .object([SchemaProperty("seconds", .number)]), output: .object([SchemaProperty("slept", .number)])))
        #expect(
            r.schema(for: "baton.fail")?.input
                == .object([
                    SchemaProperty("message", .string), SchemaProperty("permanent", .boolean, required: false),
                    SchemaProperty("succeed_on_attempt", .integer, required: false),
                ]))
        #expect(r.schema(for: "baton.delay") == nil)
        #expect(r.checkedSchemas["baton.delay"] == DelayProcedure.schema)
    }

    @Test func demoProcedures() {
        let r = ProcedureRegistry.demo
        for name in r.names { #expect(r.schema(for: name) != nil, "\(name)") }
        #expect(
            r.schema(for: "demo.count-words")?.output
                == .object([SchemaProperty("counts", .dictionary(of: .integer)), SchemaProperty("total", .integer)]))
        #expect(
            r.schema(for: "demo.top-words")?.output
                == .array(items: .object([SchemaProperty("word", .string), SchemaProperty("count", .integer)])))
        #expect(r.schema(for: "demo.merge-counts")?.input == .object([SchemaProperty("counts", .array(items: .dictionary(of: .integer)))]))
    }

    @Test func jsonFormRoundTripsAndIsStable() throws {
        let schema = TypeSchema.object(
            properties: [
                SchemaProperty("a", .nullable(.integer)), SchemaProperty("b", .string(values: ["x", "y"]), required: false),
                SchemaProperty("c", .array(items: .any)),
            ], additional: .number)
        let text = schema.json.serialized()
        #expect(
            text
                == #"{"type":"object","properties":{"a":{"type":"integer","nullable":true},"b":{"type":"string","enum":["x","y"]},"#
                + #""c":{"type":"array","items":{"type":"any"}}},"required":["a","c"],"additionalProperties":{"type":"number"}}"#)
        let decoded = try JSONDecoder().decode(TypeSchema.self, from: Data(text.utf8))
        #expect(decoded == schema)
    }

    @Test func unknownSchemaKindsReadAsAny() throws {
        #expect(TypeSchema(json: ["type": "tuple", "items": []]) == .any)
        #expect(TypeSchema(json: "integer") == .any)
        #expect(TypeSchema(json: ["type": "array", "items": ["type": "future"]]) == .array(items: .any))
    }

    @Test func summaries() {
        #expect(TypeSchema.array(items: .number).summary == "array of number")
        #expect(TypeSchema.nullable(.string).summary == "string or null")
        #expect(TypeSchema.dictionary(of: .integer).summary == "object of integer")
        #expect(
            TypeSchema.object([SchemaProperty("values", .array(items: .number)), SchemaProperty("n", .integer, required: false)]).brief
                == "{n?: integer, values: array of number}")
    }

    @Test func theSchemasOfTheDemoWorkerAreSmall() throws {
        // Measured for the choice in WorkerHeartbeat.schemasEvery: a few kilobytes.
        let bytes = try JSON(encoding: ProcedureRegistry.demo.schemas).serializedBytes().count
        print("demo worker schemas: \(bytes) bytes")
        #expect(bytes > 500 && bytes < 8_000, "\(bytes) bytes")
    }
}
