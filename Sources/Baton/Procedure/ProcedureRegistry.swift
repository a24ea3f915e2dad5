/// The procedures a worker serves, by name.
public struct ProcedureRegistry: Sendable {
    typealias Runner = @Sendable (JSON, ProcedureContext) async throws -> JSON
    private var runners: [String: Runner] = [:]

    public init() {}

    /// A registry with Baton's built-in procedures (`baton.echo`, `baton.add`, ...).
    public static var builtIn: ProcedureRegistry {
        var r = ProcedureRegistry()
        r.register(EchoProcedure())
        r.register(AddProcedure())
        r.register(SleepProcedure())
        r.register(FailProcedure())
        return r
    }

    /// Adds (or replaces) the procedure registered under `P.name`.
    public mutating func register<P: Procedure>(_ procedure: P) {
        runners[P.name] = { json, context in
            let input: P.Input
            do {
                input = try json.decode(as: P.Input.self)
            } catch {
                throw ProcedureFailure("input does not fit \(P.name): \(describeDecodingError(error))", permanent: true)
            }
            let output = try await procedure.execute(input, context: context)
            return try JSON(encoding: output)
        }
    }

    /// Adds every procedure of `other`.
    public mutating func merge(_ other: ProcedureRegistry) {
        runners.merge(other.runners) { _, new in new }
    }

    public var names: [String] { runners.keys.sorted() }

    public func contains(_ name: String) -> Bool { runners[name] != nil }

    /// Runs the named procedure on a JSON input.
    public func run(_ name: String, input: JSON, context: ProcedureContext) async throws -> JSON {
        guard let runner = runners[name] else {
            throw ProcedureFailure("this worker does not serve procedure '\(name)'", permanent: false)
        }
        return try await runner(input, context)
    }
}
