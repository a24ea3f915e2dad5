import Baton
import BatonDemo
import BatonWorker

// `BatonTestWorker`: a worker for Baton's own tests and chaos suite, built with `WorkerMain` as a
// user's would be. It serves the built-in and demo procedures, `test.crash-worker`, which kills its
// own process, and `test.stubborn-sleep`, which ignores cancellation: never run it beside real work.
var registry = ProcedureRegistry.demo
registry.register(CrashWorkerProcedure())
registry.register(StubbornSleepProcedure())
await WorkerMain.main(registry: registry)
