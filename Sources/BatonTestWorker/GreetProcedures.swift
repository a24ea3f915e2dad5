import Baton

/// `acme.greet` version 1: `{"name": "Ada", "seconds": 0.5}` -> `{"greeting": "hello Ada", "version": 1}`,
/// after sleeping `seconds`. Test worker only (with `BATON_TEST_GREET_VERSIONS`).
struct GreetProcedure: Procedure {
    static let name = "acme.greet"
    struct Input: Codable, Sendable {
        var name: String
        var seconds: Double?
    }
    struct Output: Codable, Sendable {
        var greeting: String
        var version: Int
    }
    func execute(_ input: Input, context: ProcedureContext) async throws -> Output {
        if let seconds = input.seconds, seconds > 0 { try await Task.sleep(for: .seconds(min(seconds, 30))) }
        return Output(greeting: "hello \(input.name)", version: Self.version)
    }
}

/// `acme.greet` version 2, whose input is not version 1's: `{"person": {"first": "Ada"}}`.
struct GreetProcedureV2: Procedure {
    static let name = "acme.greet"
    static let version = 2
    struct Person: Codable, Sendable {
        var first: String
    }
    struct Input: Codable, Sendable {
        var person: Person
    }
    func execute(_ input: Input, context: ProcedureContext) async throws -> GreetProcedure.Output {
        GreetProcedure.Output(greeting: "hello \(input.person.first)", version: Self.version)
    }
}
