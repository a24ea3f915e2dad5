import Baton

extension ProcedureRegistry {
    /// The built-in procedures plus the demo ones (`demo.*`), which `baton worker --demo` serves.
    /// None of them can harm the worker that runs it.
    public static var demo: ProcedureRegistry {
        var r = ProcedureRegistry.builtIn
        r.register(ChunkTextProcedure())
        r.register(CountWordsProcedure())
        r.register(MergeCountsProcedure())
        r.register(TopWordsProcedure())
        r.register(FormatProcedure())
        r.register(MultiplyProcedure())
        r.register(DivideProcedure())
        r.register(CountdownProcedure())
        r.register(StepsProcedure())
        r.register(SlowAddProcedure())
        r.register(FibProcedure())
        return r
    }
}
