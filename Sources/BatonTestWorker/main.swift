import Baton
import BatonDemo
import BatonWorker
import BatonWorkerExtras
import Foundation

// `BatonTestWorker`: a worker for Baton's own tests and chaos suite, built with `WorkerMain` as a
// user's would be. It serves the built-in and demo procedures, `test.crash-worker`, which kills its
// own process, `test.stubborn-sleep`, which ignores cancellation (never run it beside real work), and
// `test.throw`, which throws errors of its own types, and `test.traced`, which opens a span of its own;
// with BATON_TEST_GREET_VERSIONS (say `1`, `2` or `1,2`), those versions of `acme.greet`.
var registry = ProcedureRegistry.demo
registry.register(CrashWorkerProcedure())
registry.register(StubbornSleepProcedure())
registry.register(ThrowProcedure())
registry.register(TracedProcedure())
let greetVersions = (ProcessInfo.processInfo.environment["BATON_TEST_GREET_VERSIONS"] ?? "").split(separator: ",")
if greetVersions.contains("1") { registry.register(GreetProcedure()) }
if greetVersions.contains("2") { registry.register(GreetProcedureV2()) }
await WorkerMain.main(registry: registry, extras: .all)  // --metrics, --otlp-endpoint and YAML, as `baton worker`
