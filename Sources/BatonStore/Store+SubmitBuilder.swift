import Baton

extension Store {
    /// Validates a graph built in Swift as `baton submit` validates a file, and stores it as a new
    /// run: every procedure must be served by a live worker or built in (unless
    /// `allowUnknownProcedures`), and node inputs must fit the schemas live workers published
    /// (unless `typeCheck` is false: `baton submit --no-type-check`). A builder's typed handles
    /// already make most mismatches compile errors; this catches what they cannot see (a JSON
    /// input, `.with` fields, a worker whose procedures changed since this program was built).
    /// `input` is the run's input, merged over the graph's declared defaults (as `--input`).
    /// Throws `GraphValidationError` with every problem; nothing is stored then.
    public func submit(
        _ builder: GraphBuilder, input: JSON? = nil, idempotencyKey: String? = nil, allowUnknownProcedures: Bool = false,
        typeCheck: Bool = true
    ) throws -> SubmittedRun {
        let workers = try liveWorkers()
        var known: Set<String>? = nil
        if !allowUnknownProcedures {
            known = Self.knownProcedures(of: workers, beside: .builtIn)
        }
        let graph = try builder.build(knownProcedures: known, input: input, servedVersions: Self.servedVersions(of: workers))
        if typeCheck {
            let problems = TypeChecker(schemas: Self.inputSchemas(of: workers, over: .builtIn)).check(graph)
            if !problems.isEmpty { throw GraphValidationError(problems: problems) }
        }
        return try submit(graph, idempotencyKey: idempotencyKey)
    }
}
