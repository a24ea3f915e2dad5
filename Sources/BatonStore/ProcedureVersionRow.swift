import Baton

/// One version of a procedure as `baton procedures` and `GET /api/v1/procedures` list it: its
/// schemas, whether a live worker serves it, and how many unfinished runs still need it.
public struct ProcedureVersionRow: Sendable, Equatable {
    /// The routed name (`acme.greet`, `acme.greet@2`).
    public let name: String
    public let procedure: String
    public let version: Int
    public let input: TypeSchema?
    public let output: TypeSchema?
    /// Whether a live worker serves this version.
    public let served: Bool
    /// Unfinished runs with a node of this version not yet ended.
    public let unfinishedRuns: Int

    public init(name: String, input: TypeSchema?, output: TypeSchema?, served: Bool, unfinishedRuns: Int) {
        let parsed = ProcedureName(parsing: name) ?? ProcedureName(base: name, pinned: false)
        self.name = name
        procedure = parsed.base
        version = parsed.version
        self.input = input
        self.output = output
        self.served = served
        self.unfinishedRuns = unfinishedRuns
    }

    /// Every version live workers serve or unfinished runs need, by procedure then version.
    public static func rows(workers: [WorkerRow], schemas: [String: ProcedureSchema], unfinished: [String: Int]) -> [ProcedureVersionRow] {
        let served = Set(workers.flatMap(\.procedures))
        return served.union(unfinished.keys).map { name in
            ProcedureVersionRow(
                name: name, input: schemas[name]?.input, output: schemas[name]?.output, served: served.contains(name),
                unfinishedRuns: unfinished[name] ?? 0)
        }
        .sorted { ($0.procedure, $0.version) < ($1.procedure, $1.version) }
    }

    /// The JSON form (`baton procedures --json`, the API).
    public var json: JSON {
        [
            "name": .string(name), "procedure": .string(procedure), "version": .int(Int64(version)), "input": input?.json ?? .null,
            "output": output?.json ?? .null, "served": .bool(served), "unfinished_runs": .int(Int64(unfinishedRuns)),
        ]
    }

    /// Reads the JSON form (from the API).
    public init?(json: JSON) {
        guard let name = json["name"]?.stringValue else { return nil }
        func schema(_ json: JSON?) -> TypeSchema? { json.flatMap { $0 == .null ? nil : TypeSchema(json: $0) } }
        self.init(
            name: name, input: schema(json["input"]), output: schema(json["output"]), served: json["served"]?.boolValue ?? true,
            unfinishedRuns: json["unfinished_runs"]?.intValue ?? 0)
    }
}

extension Store {
    /// For each routed procedure name, the unfinished runs with a node of it not yet ended: the runs
    /// that still need workers of that version.
    public func unfinishedRunsByProcedure() throws -> [String: Int] {
        let r = try connection.query(
            """
            select n.procedure, count(distinct n.run_id)::int as runs
            from baton.runs r join baton.nodes n on n.run_id = r.id and n.run_submitted_at = r.submitted_at
            where r.status in ('pending', 'running') and n.status in ('pending', 'ready', 'queued', 'running', 'waiting')
              and n.procedure not in ('baton.group', 'baton.signal', 'baton.delay')
            group by n.procedure
            """)
        var result: [String: Int] = [:]
        for i in 0..<r.rowCount { result[r[row: i, column: "procedure"]!] = r.int(i, "runs") ?? 0 }
        return result
    }
}
