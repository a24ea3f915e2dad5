import Baton

extension ProcedureRegistry {
    /// The built-in procedures plus the demo ones that Baton's own worker serves.
    public static var standard: ProcedureRegistry {
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
        r.register(CrashWorkerProcedure())
        r.register(SlowAddProcedure())
        return r
    }
}
