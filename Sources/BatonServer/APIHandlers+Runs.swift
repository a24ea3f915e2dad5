import Baton
import BatonDashboard
import BatonDemo
import BatonStore
import Foundation
import Hummingbird

/// Runs: submitted and read.
extension APIHandlers {
    /// `POST /api/v1/runs`: a `RunCreate` body checked as `baton submit` checks a file (the same words),
    /// stored as a new run (201) or, for an `Idempotency-Key` that names an earlier run of the same graph
    /// and input, that run (200); `?wait=` answers when the run ended or the wait ran out.
    func createRun(_ request: Request, source: String?) async -> Response {
        await answer(request, scope: .submit) { [self] token in
            let wait = try APIWait.parse(request.uri.queryParameters.get("wait"))
            let key = try Self.idempotencyKey(request)
            let body = try await RunCreateBody.read(request, limits: limits)
            let workers = try await pool.run { try $0.liveWorkers() }
            let graph = try body.graph(
                limits: limits, knownProcedures: body.allowUnknownProcedures ? nil : Store.knownProcedures(of: workers, beside: .demo),
                schemas: body.typeCheck ? Store.inputSchemas(of: workers, over: .demo) : nil)
            let run: SubmittedRun
            do { run = try await pool.run { try $0.submit(graph, idempotencyKey: key) } } catch let conflict as IdempotencyKeyConflict {
                throw APIError.conflict(
                    "Idempotency-Key '\(conflict.key)' already belongs to run \(conflict.runID), which has a different graph or input; "
                        + "send that graph and input to get the run, or use another key")
            }
            if run.created {
                let entry = AuditEntry(tokenName: token.name, action: "run.submit", target: run.id, source: source)
                try await pool.run { try $0.recordAudit(entry, status: 201) }
            }
            let unserved = UnservedProcedures(graph: graph, workers: workers)
            let ended = try await awaitEnd(run.id, wait: wait)
            let value: [(key: String, value: JSON)] = [
                ("id", .string(run.id)), ("status", .string((ended?.status ?? run.status).rawValue)), ("existing", .bool(!run.created)),
                ("name", .string(graph.name)), ("nodes", .int(Int64(graph.order.count))), ("unserved", unserved.json),
                ("error", ended?.error.map(JSON.string) ?? .null), ("outputs", ended?.outputs ?? .null),
            ]
            return (run.created ? 201 : 200, .object(JSONObject(value)))
        }
    }

    /// `GET /api/v1/runs/{id}`: the run, its progress, running and unserved nodes, and its outputs once it ended.
    func getRun(_ request: Request, _ rawID: String) async -> Response {
        await answer(request, scope: .read) { [self] _ in
            let id = try Self.runID(rawID)
            let wait = try APIWait.parse(request.uri.queryParameters.get("wait"))
            _ = try await awaitEnd(id, wait: wait)
            let detail = try await pool.run { store -> JSON? in
                guard try store.runStatus(id) != nil, let run = try store.run(id) else { return nil }
                let progress = try store.progress(ofRun: id)
                let running = try store.runningNodes(ofRun: id, limit: 20)
                let unserved = try store.unservedNodes(ofRun: id, limit: 100)
                return [
                    "run": DashboardJSON.run(run),
                    "progress": ["top": DashboardJSON.counts(progress.top), "children": DashboardJSON.counts(progress.children)],
                    "running": .array(running.map(JSON.string)), "unserved": Self.unservedJSON(unserved),
                    "outputs": run.status.isTerminal ? try Self.outputs(store, id) : .null,
                ]
            }
            guard let detail else { throw APIError.notFound("no run with id \(id)") }
            return (200, detail)
        }
    }

    /// Waits up to `wait` seconds for the run to end, polling its status in short pool jobs (no pool
    /// thread is held meanwhile); the run's end, or nil if it goes on (or no wait was asked).
    func awaitEnd(_ id: String, wait: Double) async throws -> (status: RunStatus, error: String?, outputs: JSON)? {
        let deadline = ContinuousClock.now + .milliseconds(Int(wait * 1000))
        while true {
            let ended = try await pool.run { store -> (RunStatus, String?, JSON)? in
                guard let progress = try? store.progress(ofRun: id), progress.status.isTerminal else { return nil }
                return (progress.status, progress.error, try Self.outputs(store, id))
            }
            if let ended { return ended }
            guard ContinuousClock.now < deadline else { return nil }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Each top-level node's output, by key (a run that ended).
    static func outputs(_ store: Store, _ id: String) throws -> JSON { try store.outputs(ofRun: id) }

    static func unservedJSON(_ nodes: [UnservedNode]) -> JSON {
        var entries: [(procedure: String, pool: String, nodes: [String])] = []
        for node in nodes {
            if let i = entries.firstIndex(where: { $0.procedure == node.procedure && $0.pool == node.pool }) {
                entries[i].nodes.append(node.key)
            } else {
                entries.append((node.procedure, node.pool, [node.key]))
            }
        }
        return .array(entries.map { ["procedure": .string($0.procedure), "pool": .string($0.pool), "nodes": .array($0.nodes.map(JSON.string))] })
    }

    /// The `Idempotency-Key` header: 1 to 200 characters when sent.
    static func idempotencyKey(_ request: Request) throws -> String? {
        guard let name = HTTPFields.Element.Name("Idempotency-Key"), let key = request.headers[name] else { return nil }
        guard !key.isEmpty, key.count <= 200 else { throw APIError.badRequest("Idempotency-Key must be 1 to 200 characters") }
        return key
    }
}
