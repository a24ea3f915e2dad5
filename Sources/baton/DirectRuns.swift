import Baton
import BatonCommandLine
import BatonDemo
import BatonStore
import Foundation

/// The run commands on the database itself (`--database-url`): what they did before remote mode.
struct DirectRuns: RunAccess {
    let store: Store

    func resolveRunID(_ text: String) async throws -> String {
        do { return try store.resolveRunID(text) } catch { throw CLIFailure("\(error)") }
    }

    func run(_ id: String) async throws -> RunRow {
        guard let row = try store.run(id) else { throw CLIFailure("no run with id \(id)") }
        return row
    }

    func nodes(ofRun id: String) async throws -> [NodeRow] { try store.nodes(ofRun: id) }

    func events(ofRun id: String, after: Int) async throws -> [EventRow] {
        var after = after
        var all: [EventRow] = []
        while true {
            let page = try store.events(ofRun: id, after: after)
            all += page
            guard let last = page.last, page.count == 10_000 else { return all }
            after = last.id
        }
    }

    func runs(status: RunStatus?, limit: Int) async throws -> [RunRow] { try store.runs(status: status, limit: limit) }

    func timeline(ofRun id: String) async throws -> (status: RunStatus, timeline: RunTimeline) {
        guard let (status, timeline) = try store.timeline(ofRun: id) else { throw CLIFailure("no run with id \(id)") }
        return (status, timeline)
    }

    func outputs(ofRun id: String) async throws -> JSON { try store.outputs(ofRun: id) }

    func progress(ofRun id: String) async throws -> RunProgress { try store.progress(ofRun: id) }

    func unserved(ofRun id: String, limit: Int) async throws -> [String] {
        ((try? store.unservedNodes(ofRun: id, limit: limit)) ?? []).map(\.description)
    }

    func snapshot(ofRun id: String) async throws -> RunSnapshot {
        let progress: RunProgress
        do { progress = try store.progress(ofRun: id) } catch { throw CLIFailure("lost track of run \(id): \(error)") }
        let counts = progress.counts
        let unserved =
            (counts[.queued] ?? 0) > 0
            ? ((try? store.unservedNodes(ofRun: id, limit: 3)).map { $0.map(\.description).joined(separator: ", ") } ?? "") : ""
        let running = (counts[.running] ?? 0) > 0 ? try store.runningNodes(ofRun: id, limit: 3) : []
        return RunSnapshot(progress: progress, running: running, unserved: unserved)
    }

    func awaitChange(ofRun id: String, after event: Int, refresh: Duration) async throws -> Int {
        try await Task.sleep(for: refresh)  // the refresh interval of a display for people, not synchronisation
        return event
    }

    func submit(_ submission: Submission) async throws -> SubmittedRunAnswer {
        // The live workers are read once: to check the graph and, after storing, to tell which procedures none serves.
        let checked = try CheckedGraphFile(
            submission.bytes, path: submission.path, store: store, allowUnknownProcedures: submission.allowUnknownProcedures,
            typeCheck: submission.typeCheck, input: submission.input)
        let graph = checked.graph
        let run: SubmittedRun
        do { run = try store.submit(graph, idempotencyKey: submission.idempotencyKey, traceparent: submission.traceparent) } catch let conflict
            as IdempotencyKeyConflict
        {
            throw CLIFailure(
                "--idempotency-key '\(conflict.key)' already belongs to run \(conflict.runID), which has a different graph or input; "
                    + "submit that graph and input to get the run, or use another key", exitCode: 2)
        } catch { throw CLIFailure("cannot store the run: \(error)") }
        return SubmittedRunAnswer(
            id: run.id, status: run.status, existing: !run.created, nodeCount: graph.order.count,
            unserved: UnservedProcedures(graph: graph, workers: checked.workers))
    }

    func request(cancel: Bool, _ id: String, reason: String?, from: String?, timeout: Double) async throws -> RequestAnswer {
        let before = try store.progress(ofRun: id).status
        let request: Int
        if cancel {
            if before.isTerminal { throw CLIFailure("run \(id) already ended (\(before.rawValue)); nothing to cancel") }
            request = try store.request(.cancel, runID: id, reason: "cancelled: \(reason ?? "by request (baton cancel)")")
        } else {
            guard before == .failed || before == .cancelled else {
                throw CLIFailure("run \(id) is \(before.rawValue); only a failed or cancelled run can be retried")
            }
            if let from {  // the coordinator would ignore a retry that cannot succeed: say so now, and why
                let state: RunState?
                do { state = try store.loadRun(id) } catch { throw CLIFailure("\(error)") }
                guard let state else { throw CLIFailure("no run with id \(id)") }
                guard state.graph.nodes[from] != nil else { throw CLIFailure("run \(id) has no node '\(from)'", exitCode: 2) }
                do { _ = try state.nodesToRetry(from: from) } catch {
                    throw CLIFailure("cannot retry run \(id) from '\(from)': \(error.description)", exitCode: 2)
                }
            }
            request = try store.request(.retry, runID: id, node: from)
        }
        let status = try await RequestWaiter(store: store, requestID: request, runID: id, timeout: timeout).wait()
        return RequestAnswer(status: status ?? before, applied: status != nil)
    }

    func bulk(_ action: BulkAction, _ filter: RunFilter, reason: String?, dryRun: Bool, timeout: Double) async throws -> BulkAnswer {
        if dryRun {
            let preview = try store.bulkPreview(action, filter)
            return BulkAnswer(
                action: action, filter: filter.text, dryRun: true, matched: preview.count, applied: 0, batches: 0, runs: preview.runs)
        }
        let made = try store.bulkRequest(action, filter, reason: "cancelled: \(reason ?? "by request (baton cancel --where)")")
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        var open = try store.unhandledRequests(made.requests)
        while open > 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))  // the coordinators' pace, polled until the deadline
            open = try store.unhandledRequests(made.requests)
        }
        return BulkAnswer(
            action: action, filter: filter.text, dryRun: false, matched: made.requests.count, applied: made.requests.count - open,
            batches: made.batches, runs: [])
    }

    func signal(_ id: String, node: String, value: JSON, maxBytes: Int, timeout: Double) async throws -> (applied: Bool, status: NodeStatus?) {
        let request: Int
        do { request = try store.signal(run: id, node: node, value: value, maxBytes: maxBytes) } catch let refusal as SignalRefusal {
            throw CLIFailure("cannot signal: \(refusal)", exitCode: 2)
        }
        let applied = try await RequestWaiter(store: store, requestID: request, runID: id, timeout: timeout).wait() != nil
        return (applied, try store.nodeStatus(run: id, key: node))
    }

    func liveWorkers(within: Double?) async throws -> [WorkerRow] {
        do { return try store.liveWorkers(within: within) } catch { throw CLIFailure("cannot read the live workers: \(error)") }
    }

    func procedures() async throws -> [ProcedureVersionRow] {
        let workers = try store.liveWorkers()
        // What the workers published; for a worker that published none yet, what this baton knows.
        let schemas = Store.inputSchemas(of: workers, over: .demo)
        return ProcedureVersionRow.rows(workers: workers, schemas: schemas, unfinished: try store.unfinishedRunsByProcedure())
    }

    func coordinators() async throws -> (rows: [CoordinatorRow], partitions: Int) {
        (try store.coordinators(), try store.partitionCount())
    }

    func close() { store.close() }
}
