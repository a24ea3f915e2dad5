import Baton
import BatonCommandLine
import BatonDemo
import BatonStore

/// A graph file checked as `baton submit` checks it, against the live workers read in one query: its
/// procedures must be served by one of them or be demo procedures (unless `allowUnknownProcedures`),
/// and its inputs must match their schemas (unless not `typeCheck`); a node that names no version runs
/// the newest one a live worker serves (`ServedVersions`). A database error is reported as
/// what it is: without the workers every procedure would look unknown.
struct CheckedGraphFile {
    let graph: Graph
    /// The live workers it was checked against (which procedures none serves is told from them).
    let workers: [WorkerRow]

    init(_ bytes: [UInt8], path: String, store: Store, allowUnknownProcedures: Bool, typeCheck: Bool, input: JSON? = nil) throws {
        do { workers = try store.liveWorkers() } catch { throw CLIFailure("cannot read the live workers: \(error)") }
        let known = allowUnknownProcedures ? nil : Store.knownProcedures(of: workers, beside: .demo)
        let schemas = typeCheck ? Store.inputSchemas(of: workers, over: .demo) : nil
        graph = try GraphFile.decode(
            bytes, path: path, knownProcedures: known, input: input, schemas: schemas, servedVersions: Store.servedVersions(of: workers))
    }
}
