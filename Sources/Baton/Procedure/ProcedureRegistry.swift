/// The procedures a worker serves, by name.
public struct ProcedureRegistry: Sendable {
    /// What a procedure returned, encoded: its output, or a graph to run in its place.
    enum Returned: Sendable {
        case output(EncodedJSON)
        case spawn(EncodedJSON)
    }
    typealias Runner = @Sendable (JSON, ProcedureContext) async throws -> Returned
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

    /// Adds (or replaces) the procedure registered under `P.name` and `P.version` (its routed name:
    /// `P.name` for version 1, `P.name@N` else). Two versions of one name are two procedures.
    public mutating func register<P: Procedure>(_ procedure: P) {
        let name = Self.routedName(P.name, version: P.version)
        schemas[name] = ProcedureSchema(of: P.self)
        runners[name] = { json, context in
            .output(try Self.encode(try await procedure.execute(try Self.decode(json, as: P.Input.self, for: name), context: context)))
        }
    }

    /// `name` with `version`, checked: a name with an `@` or a version below 1 is a programming error.
    static func routedName(_ name: String, version: Int) -> String {
        precondition(!name.contains("@"), "procedure name '\(name)' contains '@': the version goes in `static let version`")
        precondition(
            (1...ProcedureName.maxVersion).contains(version), "procedure \(name): version \(version) is not from 1 to \(ProcedureName.maxVersion)")
        return ProcedureName.routed(name, version: version)
    }

    /// Adds (or replaces) the spawning procedure registered under `P.name`.
    /// Its output schema is `any`: when it spawns, its output is whatever the spawned graph's `output` gives.
    public mutating func register<P: SpawningProcedure>(_ procedure: P) {
        let name = Self.routedName(P.name, version: P.version)
        schemas[name] = ProcedureSchema(input: .derived(from: P.Input.self), output: .any)
        runners[name] = { json, context in
            switch try await procedure.execute(try Self.decode(json, as: P.Input.self, for: name), context: context) {
            case let .output(output): return .output(try Self.encode(output))
            case let .spawn(graph): return .spawn(EncodedJSON(graph.document))
            }
        }
    }

    private static func decode<Input: Decodable>(_ json: JSON, as type: Input.Type, for name: String) throws -> Input {
        do { return try json.decode(as: Input.self) } catch {
            throw ProcedureFailure("input does not fit \(name): \(describeDecodingError(error))", permanent: true)
        }
    }

    /// Serialized once, here; the bytes travel to the coordinator as they are.
    private static func encode<Output: Encodable>(_ output: Output) throws -> EncodedJSON {
        if let json = output as? JSON { return EncodedJSON(json) }
        return EncodedJSON(Array(try JSONCoding.encoder.encode(output)))
    }

    /// This registry with `other`'s procedures added; where both have a name, `other`'s wins.
    public func merging(_ other: ProcedureRegistry) -> ProcedureRegistry {
        var merged = self
        merged.runners.merge(other.runners) { _, theirs in theirs }
        merged.schemas.merge(other.schemas) { _, theirs in theirs }
        return merged
    }

    /// The routed names served (`acme.greet`, `acme.greet@2`), sorted.
    public var names: [String] { runners.keys.sorted() }

    public func contains(_ name: String) -> Bool { runners[name] != nil }

    /// The input and output shape of the named procedure, if it is registered.
    public func schema(for name: String) -> ProcedureSchema? { schemas[name] }

    /// The shapes known without asking any worker: this registry's, and `baton.delay`'s, which
    /// the coordinator runs itself.
    public var checkedSchemas: [String: ProcedureSchema] {
        schemas.merging([DelayProcedure.name: DelayProcedure.schema]) { mine, _ in mine }
    }

    /// Runs the named procedure on a JSON input; returns its output (or the graph it spawned) as encoded.
    func run(_ name: String, input: JSON, context: ProcedureContext) async throws -> Returned {
        guard let runner = runners[name] else {
            throw ProcedureFailure("this worker does not serve procedure '\(name)'", permanent: false)
        }
        return try await runner(input, context)
    }
}
