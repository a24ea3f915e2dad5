import Baton

// Typed procedures for the graph builder's tests.

struct Split: Procedure {
    static let name = "test.split"
    struct Input: Codable, Sendable { var text: String; var parts: Int }
    struct Output: Codable, Sendable { var chunks: [String]; var first: String; var stats: Stats }
    struct Stats: Codable, Sendable { var count: Int; var longest: String?; var many: Bool }
    func execute(_ input: Input, context: ProcedureContext) async throws -> Output {
        let words = input.text.split(separator: " ").map(String.init)
        let size = max(1, (words.count + input.parts - 1) / input.parts)
        let chunks = stride(from: 0, to: words.count, by: size).map { words[$0..<min($0 + size, words.count)].joined(separator: " ") }
        return Output(
            chunks: chunks, first: chunks.first ?? "",
            stats: Stats(count: chunks.count, longest: chunks.max { $0.count < $1.count }, many: chunks.count > 1))
    }
}

struct Shout: Procedure {
    static let name = "test.shout"
    struct Input: Codable, Sendable { var text: String; var times: Int?; var label: String? }
    struct Output: Codable, Sendable { var text: String }
    func execute(_ input: Input, context: ProcedureContext) async throws -> Output {
        let loud = input.text.uppercased() + String(repeating: "!", count: input.times ?? 1)
        return Output(text: input.label.map { "\($0): \(loud)" } ?? loud)
    }
}

struct Length: Procedure {
    static let name = "test.length"
    typealias Input = String
    typealias Output = Int
    func execute(_ input: String, context: ProcedureContext) async throws -> Int { input.count }
}

struct Total: Procedure {
    static let name = "test.total"
    struct Input: Codable, Sendable { var values: [Int] }
    struct Output: Codable, Sendable { var total: Int }
    func execute(_ input: Input, context: ProcedureContext) async throws -> Output { Output(total: input.values.reduce(0, +)) }
}

struct IsLong: Procedure {
    static let name = "test.is-long"
    struct Input: Codable, Sendable { var count: Int }
    func execute(_ input: Input, context: ProcedureContext) async throws -> Bool { input.count > 2 }
}

/// Fails until its third attempt.
struct Flaky: Procedure {
    static let name = "test.flaky"
    struct Input: Codable, Sendable { var word: String }
    struct Output: Codable, Sendable { var word: String; var attempt: Int }
    func execute(_ input: Input, context: ProcedureContext) async throws -> Output {
        guard context.attempt >= 3 else { throw ProcedureFailure("not yet") }
        return Output(word: input.word, attempt: context.attempt)
    }
}

/// A run input's typed shape.
struct Customer: Codable, Sendable { var name: String; var tier: Int }

/// A type whose coding keys rename a property.
struct Renamed: Codable, Sendable, CustomFieldNames {
    var postCode: String
    enum CodingKeys: String, CodingKey { case postCode = "post_code" }
    static var fieldNames: [String: String] { ["postCode": "post_code"] }
}

extension ProcedureRegistry {
    /// The built-in procedures and the builder tests' own.
    static var builderTests: ProcedureRegistry {
        var r = ProcedureRegistry.builtIn
        r.register(Split())
        r.register(Shout())
        r.register(Length())
        r.register(Total())
        r.register(IsLong())
        r.register(Flaky())
        r.register(SplitSum())
        return r
    }
}

/// Spawns a fragment built with the builder: the total of `values`, split in two halves summed apart.
struct SplitSum: SpawningProcedure {
    static let name = "test.split-sum"
    struct Input: Codable, Sendable { var values: [Int] }
    func execute(_ input: Input, context: ProcedureContext) async throws -> Spawnable<Total.Output> {
        if input.values.count < 2 { return .output(Total.Output(total: input.values.reduce(0, +))) }
        var g = GraphBuilder()
        let half = input.values.count / 2
        let left = g.add("left", spawning: SplitSum.self, input: Input(values: Array(input.values[..<half])))
        let right = g.add("right", spawning: SplitSum.self, input: Input(values: Array(input.values[half...])))
        let sum = g.add("sum", Total.self, input: .fields { $0.set(\.values, .array([left.output(\.total), right.output(\.total)])) })
        return try .graph(g.fragment(output: sum.output))
    }
}
