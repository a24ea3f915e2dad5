import Baton

/// `demo.fib`: the `n`th Fibonacci number, by spawning. For n < 2 it outputs n; otherwise it spawns
/// `a` (`demo.fib` of n-1), `b` (`demo.fib` of n-2) and `sum` (`baton.add` of both), and outputs `sum`.
public struct FibProcedure: SpawningProcedure {
    public static let name = "demo.fib"
    public struct Input: Codable, Sendable {
        public let n: Int
        public init(n: Int) { self.n = n }
    }
    public init() {}

    public func execute(_ input: Input, context: ProcedureContext) async throws -> Spawnable<Int64> {
        guard (0...90).contains(input.n) else { throw ProcedureFailure("n must be from 0 to 90, found \(input.n)", permanent: true) }
        if input.n < 2 { return .output(Int64(input.n)) }
        return .spawn(
            SubGraph(
                [
                    "a": try .run(FibProcedure.self, Input(n: input.n - 1)),
                    "b": try .run(FibProcedure.self, Input(n: input.n - 2)),
                    "sum": .run(AddProcedure.self, template: ["values": [SubGraph.from("a"), SubGraph.from("b")]]),
                ], output: SubGraph.from("sum")))
    }
}
