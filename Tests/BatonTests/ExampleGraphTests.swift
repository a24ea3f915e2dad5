import Baton
import BatonDemo
import BatonTesting
import Foundation
import Testing

/// Every graph in examples/ does what its name promises, in process.
@Suite("examples/")
struct ExampleGraphTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("examples")

    static func load(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    static func run(_ name: String) async throws -> RunState {
        let registry = ProcedureRegistry.demo
        let graph = try GraphDecoder(knownProcedures: Set(registry.names)).decode(try load(name))
        return await LocalEngine(registry: registry).run(graph)
    }

    @Test func everyExampleButInvalidIsValid() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.directory.path).filter { $0.hasSuffix(".json") }
        #expect(names.count >= 5)
        for name in names where name != "invalid.json" {
            #expect(throws: Never.self, "\(name)") {
                try GraphDecoder(knownProcedures: Set(ProcedureRegistry.demo.names)).decode(try Self.load(name))
            }
        }
    }

    @Test func invalidListsEveryProblem() throws {
        let bytes = try Self.load("invalid.json")
        do {
            _ = try GraphDecoder(knownProcedures: Set(ProcedureRegistry.demo.names)).decode(bytes)
            Issue.record("invalid.json was accepted")
        } catch {
            let text = error.problems.map(\.description)
            #expect(text.contains { $0.contains("node 'Resize'") && $0.contains("invalid node key") })
            #expect(text.contains("node 'Resize', field 'procedure': unknown procedure 'demo.resize' (no worker serves it; see `baton procedures`)"))
            #expect(text.contains("node 'Resize', field 'input/image/$from': refers to missing node 'reed'"))
            #expect(text.contains { $0.hasPrefix("node 'Resize', field 'input/image/select': invalid JSON pointer 'bytes'") })
            #expect(text.contains("node 'save', field 'input/data/$from': a node cannot refer to its own output"))
            #expect(text.contains("node 'save', field 'after/1': refers to missing node 'ghost'"))
            #expect(text.contains { $0.contains("dependency cycle: loop-") })
        }
    }

    @Test func arithmetic() async throws {
        let state = try await Self.run("arithmetic.json")
        #expect(state.status == .succeeded)
        let sum = 1 + 2 + 3, product = sum * 10, other = sum + 100
        #expect(
            state.nodes["summary"]?.output == [
                "sum": .int(Int64(sum)), "product": .int(Int64(product)),
                "ratio": .double(Double(product) / Double(other)),
            ])
    }

    @Test func failingBranch() async throws {
        let state = try await Self.run("failing-branch.json")
        #expect(state.status == .failed)
        #expect(state.nodes["flaky"]?.status == .failed)
        #expect(state.nodes["needs-flaky"]?.status == .cancelled)
        #expect(state.nodes["report"]?.error == "dependency 'needs-flaky' was cancelled")
        #expect(state.nodes["sum"]?.output == 6)
    }

    @Test func wordCount() async throws {
        let state = try await Self.run("word-count.json")
        #expect(state.status == .succeeded)
        let text = try JSONParser.parse(try Self.load("word-count.json"))["nodes"]?["chunk"]?["input"]?["text"]?.stringValue ?? ""
        let words = text.lowercased().split { !($0.isLetter || $0.isNumber) }
        #expect(state.nodes["merge"]?.output?["total"]?.intValue == words.count)
        #expect(state.nodes["top"]?.output?.arrayValue?.first?["word"] == "the")
    }
}

extension ExampleGraphTests {
    @Test func groupNestsAndGivesItsOutputTemplate() async throws {
        let state = try await Self.run("group.json")
        #expect(state.status == .succeeded)
        #expect(state.nodes["stats"]?.output == ["double": 14, "square": 49, "sum": 63])
        #expect(state.nodes["stats/inner/sum"]?.output == 63)
        #expect(state.nodes["report"]?.output == ["sum": 63])
    }

    @Test func mapMultipliesEachElement() async throws {
        let state = try await Self.run("map.json")
        #expect(state.nodes["times-ten"]?.output == [10, 20, 30, 40, 50])
        #expect(state.nodes["total"]?.output == 150)
    }

    @Test func mapCollectGathersEveryOutcome() async throws {
        let state = try await Self.run("map-collect.json")
        #expect(state.status == .succeeded)
        #expect(state.nodes["quotients"]?.output == [["ok": 3.0], ["error": "division by zero"], ["ok": 4.0]])
    }

    @Test func fibSpawnsToTheAnswer() async throws {
        let state = try await Self.run("fib.json")
        #expect(state.nodes["fib"]?.output == 55)
        #expect(state.graph.order.count == 265)
    }
}
