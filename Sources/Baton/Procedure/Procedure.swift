/// A unit of work that workers run: typed input and output, registered by a
/// stable name. Throw to fail the attempt; throw a `ProcedureFailure` with
/// `permanent: true` to fail the node without further attempts.
public protocol Procedure: Sendable {
    associatedtype Input: Codable & Sendable
    associatedtype Output: Codable & Sendable

    /// The name graphs use, such as `demo.count-words`.
    static var name: String { get }

    func execute(_ input: Input, context: ProcedureContext) async throws -> Output
}
