import Baton

extension Store {
    /// Validates a graph built in Swift as `baton submit` validates a file (every procedure must be
    /// served by a live worker or built in, unless `allowUnknownProcedures`) and stores it as a new run.
    /// `input` is the run's input, merged over the graph's declared defaults (as `--input`).
    /// Throws `GraphValidationError` with every problem; nothing is stored then.
    public func submit(
        _ builder: GraphBuilder, input: JSON? = nil, idempotencyKey: String? = nil, allowUnknownProcedures: Bool = false
    ) throws -> SubmittedRun {
        var known: Set<String>? = nil
        if !allowUnknownProcedures {
            known = Set(ProcedureRegistry.builtIn.names).union(try liveWorkers().flatMap(\.procedures))
        }
        return try submit(try builder.build(knownProcedures: known, input: input), idempotencyKey: idempotencyKey)
    }
}
