/// A procedure that may end by returning a graph to run in its place, as ProcedureKit's procedures
/// that produce procedures. The graph is validated like a submitted one (an invalid graph fails the
/// node, listing every problem), its nodes are keyed `node/child`, and the node ends when they have,
/// with the graph's `output` as its output. Spawned procedures may spawn again, up to the depth limit.
public protocol SpawningProcedure: Sendable {
    associatedtype Input: Codable & Sendable
    associatedtype Output: Codable & Sendable

    /// The name graphs use, such as `demo.fib`.
    static var name: String { get }
    /// As `Procedure.version` (default 1).
    static var version: Int { get }

    func execute(_ input: Input, context: ProcedureContext) async throws -> Spawnable<Output>
}

/// How a spawning procedure ends: with its output, or with a graph whose output stands for it.
public enum Spawnable<Output: Codable & Sendable>: Sendable {
    case output(Output)
    case spawn(SubGraph)
}

extension SpawningProcedure {
    public static var version: Int { 1 }
}
