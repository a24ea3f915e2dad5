/// The procedures a worker serves, by name.
public struct ProcedureRegistry: Sendable {
    typealias Runner = @Sendable (JSON, ProcedureContext) async throws -> EncodedJSON
    private var runners: [String: Runner] = [:]
    /// Each procedure's input and output shape, derived once when it is registered.
    public private(set) var schemas: [String: ProcedureSchema] = [:]

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
        schemas[P.name] = ProcedureSchema(of: P.self)
        runners[P.name] = { json, context in
            let input: P.Input
            do {
                input = try json.decode(as: P.Input.self)
            } catch {
                throw ProcedureFailure("input does not fit \(P.name): \(describeDecodingError(error))", permanent: true)
            }
            let output = try await procedure.execute(input, context: context)
            // Serialized once, here; the bytes travel to the coordinator as they are.
            if let json = output as? JSON { return EncodedJSON(json) }
            return EncodedJSON(Array(try JSONCoding.encoder.encode(output)))
        }
    }

    public var names: [String] { runners.keys.sorted() }

    public func contains(_ name: String) -> Bool { runners[name] != nil }

    /// The input and output shape of the named procedure, if it is registered.
    public func schema(for name: String) -> ProcedureSchema? { schemas[name] }

    /// The shapes known without asking any worker: this registry's, and `baton.delay`'s, which
    /// the coordinator runs itself.
    public var checkedSchemas: [String: ProcedureSchema] {
        schemas.merging([DelayProcedure.name: DelayProcedure.schema]) { mine, _ in mine }
    }

    /// Runs the named procedure on a JSON input; returns its output as encoded.
    public func run(_ name: String, input: JSON, context: ProcedureContext) async throws -> EncodedJSON {
        guard let runner = runners[name] else {
            throw ProcedureFailure("this worker does not serve procedure '\(name)'", permanent: false)
        }
        return try await runner(input, context)
    }
}
