/// A unit of work that workers run: typed input and output, registered by a
/// stable name. Throw to fail the attempt; throw a `ProcedureFailure` with
/// `permanent: true` to fail the node without further attempts.
public protocol Procedure: Sendable {
    associatedtype Input: Codable & Sendable
    associatedtype Output: Codable & Sendable

    /// The name graphs use, such as `demo.count-words`.
    static var name: String { get }
    /// The version of this procedure's code and `Input` (default 1). A worker announces and is sent
    /// tasks as `name@version` (the plain name for 1); change it when `Input` changes incompatibly,
    /// so runs planned on the old version end on workers that still serve it.
    static var version: Int { get }

    func execute(_ input: Input, context: ProcedureContext) async throws -> Output

    /// The shape of `Input`, which workers publish and `submit` checks graphs against.
    /// Derived from `Input` unless the procedure states it (say, to name the element type of a `[JSON]`).
    static var inputSchema: TypeSchema { get }
    /// The shape of `Output`, for checking what references to this procedure's nodes inject.
    static var outputSchema: TypeSchema { get }
}

extension Procedure {
    public static var version: Int { 1 }
    public static var inputSchema: TypeSchema { .derived(from: Input.self) }
    public static var outputSchema: TypeSchema { .derived(from: Output.self) }
}
