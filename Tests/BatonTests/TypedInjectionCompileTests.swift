import Foundation
import Testing

/// Proves the builder's types are checked by the compiler: a small file that injects an output
/// into an input of another type must fail to compile, saying which types differ, while the
/// same file with matching types compiles. It type-checks against the modules this build made.
@Suite("GraphBuilder: a mismatched injection does not compile", .serialized)
struct TypedInjectionCompileTests {
    static let prelude = """
        import Baton

        struct Split: Procedure {
            static let name = "t.split"
            struct Input: Codable, Sendable { var text: String }
            struct Output: Codable, Sendable { var words: [String]; var count: Int; var first: String }
            func execute(_ input: Input, context: ProcedureContext) async throws -> Output { fatalError() }
        }
        struct Shout: Procedure {
            static let name = "t.shout"
            struct Input: Codable, Sendable { var text: String; var times: Int? }
            struct Output: Codable, Sendable { var text: String }
            func execute(_ input: Input, context: ProcedureContext) async throws -> Output { fatalError() }
        }
        var g = GraphBuilder()
        let split = g.add("split", Split.self, input: Split.Input(text: "a b"))

        """

    /// The directory of the `.swiftmodule`s of this build.
    static var modules: URL? {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("Modules"),
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../.build/debug/Modules").standardized,
        ]
        return candidates.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("Baton.swiftmodule").path) }
    }

    /// Type-checks `body` after the prelude; returns the exit status and the diagnostics.
    static func typecheck(_ body: String) throws -> (status: Int32, output: String) {
        let modules = try #require(modules, "no Baton.swiftmodule next to the test binary or in .build/debug/Modules")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("baton-typecheck-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("main.swift")
        try (prelude + body).write(to: file, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swiftc", "-typecheck", "-I", modules.path, file.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func wellTypedInjectionsCompile() throws {
        let result = try Self.typecheck(
            """
            g.add("shout", Shout.self) { $0.set(\\.text, split.output(\\.first)) }
            g.add("again", Shout.self, input: .fields { $0.set(\\.text, split.output(\\.first)) })
            _ = g.map("each", over: split.output(\\.words), Shout.self) { item in .fields { $0.set(\\.text, item.item) } }
            g.add("times", Shout.self) { $0.set(\\.text, literal: "x"); $0.set(\\.times, split.output(\\.count).optional) }
            """)
        #expect(result.status == 0, "\(result.output)")
    }

    @Test func anOutputFieldOfAnotherTypeDoesNotCompile() throws {
        let result = try Self.typecheck(
            """
            g.add("shout", Shout.self) { $0.set(\\.text, split.output(\\.count)) }
            """)
        #expect(result.status != 0)
        #expect(result.output.contains("error:"), "\(result.output)")
        #expect(
            result.output.contains(
                "cannot convert value of type 'KeyPath<Shout.Input, String>' to expected argument type 'KeyPath<Shout.Input, Int>'"),
            "\(result.output)")
    }

    @Test func aMapIndexIntoAStringDoesNotCompile() throws {
        let result = try Self.typecheck(
            """
            _ = g.map("each", over: split.output(\\.words), Shout.self) { item in .fields { $0.set(\\.text, item.index) } }
            """)
        #expect(result.status != 0)
        #expect(result.output.contains("to expected argument type 'KeyPath<Shout.Input, Int>'"), "\(result.output)")
    }

    @Test func aWholeOutputOfAnotherTypeDoesNotCompile() throws {
        let result = try Self.typecheck(
            """
            g.add("shout", Shout.self, input: split.output)
            """)
        #expect(result.status != 0)
        #expect(result.output.contains("GraphValue<Split.Output>") && result.output.contains("GraphValue<Shout.Input>"), "\(result.output)")
    }
}
