import Baton
import BatonDashboard
import BatonDemo
import BatonStore
import Foundation
import Hummingbird

/// Runs: submitted, validated, listed and read.
extension APIHandlers {
    /// `POST /api/v1/runs`: a `RunCreate` body checked as `baton submit` checks a file (the same words),
    /// stored as a new run (201) or, for an `Idempotency-Key` that names an earlier run of the same graph
    /// and input, that run (200); `?wait=` answers when the run ended or the wait ran out.
    func createRun(_ request: Request, source: String?) async -> Response {
        await answer(request, scope: .submit) { [self] token in
            let wait = try APIWait.parse(request.uri.queryParameters.get("wait"))
            let key = try Self.idempotencyKey(request)
            let (graph, unserved) = try await checkedGraph(request, members: RunCreateBody.members)
            let run: SubmittedRun
            do { run = try await pool.run(write: true) { try $0.submit(graph, idempotencyKey: key) } } catch let conflict as IdempotencyKeyConflict {
                throw APIError.conflict(
                    "Idempotency-Key '\(conflict.key)' already belongs to run \(conflict.runID), which has a different graph or input; "
                        + "send that graph and input to get the run, or use another key")
            }
            if run.created {
                let entry = AuditEntry(tokenName: token.name, action: "run.submit", target: run.id, source: source)
                try await pool.run(write: true) { try $0.recordAudit(entry, status: 201) }
            }
            // A new run has not ended: its end is read only when it was asked to be waited for, or an earlier run's.
            var end: (status: RunStatus, error: String?, outputs: JSON)?
            if run.status.isTerminal || wait > 0, try await awaitEnd(run.id, wait: wait) != nil {
                end = try await pool.run { store in
                    let progress = try store.progress(ofRun: run.id)
                    return (progress.status, progress.error, try store.outputs(ofRun: run.id))
                }
            }
            let value: [(key: String, value: JSON)] = [
                ("id", .string(run.id)), ("status", .string((end?.status ?? run.status).rawValue)), ("existing", .bool(!run.created)),
                ("name", .string(graph.name)), ("nodes", .int(Int64(graph.order.count))), ("unserved", unserved.json),
                ("error", end?.error.map(JSON.string) ?? .null), ("outputs", end?.outputs ?? .null),
            ]
            return (run.created ? 201 : 200, .object(JSONObject(value)))
        }
    }

    /// `POST /api/v1/validate`: the body's graph checked as `POST /runs` checks it (`baton validate` with
    /// the live workers' procedures and schemas); 422 with every problem, nothing stored.
    func validate(_ request: Request) async -> Response {
        await answer(request, scope: .submit) { [self] _ in
            let (graph, unserved) = try await checkedGraph(request, members: RunCreateBody.checkMembers)
            return (200, ["valid": true, "name": .string(graph.name), "nodes": .int(Int64(graph.order.count)), "unserved": unserved.json])
        }
    }

    /// The request's graph, read and checked against the live workers, and the procedures none serves.
    private func checkedGraph(_ request: Request, members: Set<String>) async throws -> (Graph, UnservedProcedures) {
        let body = try await RunCreateBody.read(request, limits: limits, members: members)
        let workers = try await pool.run { try $0.liveWorkers() }
        let graph = try body.graph(
            limits: limits, knownProcedures: body.allowUnknownProcedures ? nil : Store.knownProcedures(of: workers, beside: .demo),
            schemas: body.typeCheck ? Store.inputSchemas(of: workers, over: .demo) : nil, servedVersions: Store.servedVersions(of: workers))
        return (graph, UnservedProcedures(graph: graph, workers: workers))
    }

    /// `GET /api/v1/runs`: runs newest first, filtered, a page at a time (`next_cursor`).
    func listRuns(_ request: Request) async -> Response {
        await answer(request, scope: .read) { [self] _ in
            let query = try RunListQuery(Self.parameters(request))
            // No name holds a NUL (PostgreSQL stores none, and a parameter cannot carry one): nothing matches.
            if query.name?.unicodeScalars.contains("\u{0}") == true { return (200, ["runs": [], "next_cursor": .null]) }
            let page = try await pool.run { store in
                try store.runPage(
                    status: query.status, nameContains: query.name, keyPrefix: query.schedule.map(ScheduleRow.keyPrefix), since: query.since,
                    after: query.after, limit: query.limit)
            }
            return (
                200, ["runs": .array(page.rows.map(DashboardJSON.run)), "next_cursor": page.next.map { .string(PageCursor.text(run: $0)) } ?? .null]
            )
        }
    }

    /// `GET /api/v1/runs/{id}`: the run, its progress, running and unserved nodes, and its outputs once it ended.
    func getRun(_ request: Request, _ rawID: String) async -> Response {
        await answer(request, scope: .read) { [self] _ in
            let id = try Self.runID(rawID)
            let wait = try APIWait.parse(request.uri.queryParameters.get("wait"))
            if wait > 0 { _ = try await awaitEnd(id, wait: wait) }
            let detail = try await pool.run { store -> JSON? in
                guard try store.runStatus(id) != nil, let run = try store.run(id) else { return nil }
                let progress = try store.progress(ofRun: id)
                let running = try store.runningNodes(ofRun: id, limit: 20)
                let unserved = try store.unservedNodes(ofRun: id, limit: 100)
                return [
                    "run": DashboardJSON.run(run),
                    "progress": ["top": DashboardJSON.counts(progress.top), "children": DashboardJSON.counts(progress.children)],
                    "running": .array(running.map(JSON.string)), "unserved": UnservedProcedures(unserved).json,
                    "outputs": run.status.isTerminal ? try store.outputs(ofRun: id) : .null,
                ]
            }
            guard let detail else { throw APIError.notFound("no run with id \(id)") }
            return (200, detail)
        }
    }

    /// Waits up to `wait` seconds for run `id` to end (its status read in short pool jobs); the status
    /// it ended with, or nil if it goes on (or there is no such run).
    func awaitEnd(_ id: String, wait: Double) async throws -> RunStatus? {
        try await APIWait.poll(wait: wait) { _ in
            try await pool.run { try $0.runStatus(id) }.flatMap { $0.isTerminal ? $0 : nil }
        }
    }

    /// The `Idempotency-Key` header: 1 to 200 characters when sent.
    static func idempotencyKey(_ request: Request) throws -> String? {
        guard let name = HTTPFields.Element.Name("Idempotency-Key"), let key = request.headers[name] else { return nil }
        guard !key.isEmpty, key.count <= 200 else { throw APIError.badRequest("Idempotency-Key must be 1 to 200 characters") }
        return key
    }
}
