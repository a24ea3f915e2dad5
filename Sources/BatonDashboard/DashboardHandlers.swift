import Baton
import BatonDrawing
import BatonStore
import Foundation
import Hummingbird

/// What each route does: parse and check the request (values from this module), run the queries on
/// the store pool's threads, and answer. Every failure becomes a response here, never a thrown error.
struct DashboardHandlers: Sendable {
    let pool: StorePool
    /// Who asked (set per request by `as(_:)`); the pages and the admin checks follow its scopes.
    var viewer: Viewer? = nil
    /// Whether the session cookie is `Secure` (served over TLS).
    var secureCookies = false

    var layout: PageLayout { PageLayout(viewer: viewer) }

    /// These handlers for a request by `viewer`.
    func `as`(_ viewer: Viewer?) -> DashboardHandlers {
        var copy = self
        copy.viewer = viewer
        return copy
    }

    static let maxEvents = 10_000

    // MARK: pages

    func runsPage(_ request: Request) async -> Response {
        await page {
            let query = try RunsQuery(parameters: QueryParameters.parse(request.uri.query))
            let (rows, total, counts, failures) = try await pool.run { store in
                let page = try store.runs(status: query.status, nameContains: query.name, limit: query.perPage, offset: query.offset)
                return (page.rows, page.total, try store.runCounts(), try store.failureGroups(ofRuns: page.rows.map(\.id)))
            }
            return RunsPage(query: query, runs: rows, total: total, counts: counts, now: Date().timeIntervalSince1970, failures: failures)
                .render(layout: layout)
        }
    }

    func runPage(_ id: String) async -> Response {
        await page {
            let id = try RunID(parsing: id).value
            let page = try await pool.run { store -> RunPage in
                let (run, graph) = try Self.runAndGraph(store, id)
                let nodes = try store.nodes(ofRun: id)
                let counts = try store.progress(ofRun: id).counts
                let svg = Self.svg(run: run, graph: graph, nodes: nodes)
                let failures = (counts[.failed] ?? 0) > 0 ? try store.failureGroups(ofRuns: [id]) : []
                var page = RunPage(run: run, counts: counts, svg: svg, nodes: nodes, now: Date().timeIntervalSince1970, failures: failures)
                if (counts[.waiting] ?? 0) > 0 { page.rateWaits = try store.rateWaits(ofRun: id) }
                return page
            }
            return page.render(layout: layout)
        }
    }

    func workersPage() async -> Response {
        await page {
            let (workers, coordinators) = try await pool.run { try ($0.liveWorkers(), $0.coordinators()) }
            return WorkersPage(workers: workers, coordinators: coordinators).render(layout: layout)
        }
    }

    func schedulesPage() async -> Response {
        await page {
            let (schedules, runs) = try await pool.run { store in
                let schedules = try store.schedules()
                var runs: [String: [ScheduleRun]] = [:]
                for s in schedules { runs[s.name] = try store.scheduleRuns(s.name, limit: SchedulesPage.runsShown) }
                return (schedules, runs)
            }
            return SchedulesPage(schedules: schedules, runs: runs).render(layout: layout)
        }
    }

    func eventsPage() async -> Response {
        await page {
            let (events, triggers) = try await pool.run { store in
                (try store.triggerEvents(limit: EventsPage.shown), try store.triggers())
            }
            return EventsPage(events: events, triggers: triggers).render(layout: layout)
        }
    }

    /// `/audit`: for a token with `admin` (a 403 page otherwise).
    func auditPage() async -> Response {
        await page {
            guard let viewer, viewer.name != nil else {
                throw DashboardError(status: 401, "sign in (/login) with an admin token to see the audit trail")
            }
            guard viewer.may(.admin) else { throw DashboardError(status: 403, "the audit trail is for tokens with the admin scope") }
            let entries = try await pool.run { try $0.auditEntries(limit: AuditPage.shown) }
            return AuditPage(entries: entries).render(layout: layout)
        }
    }

    // MARK: API

    func runsJSON(_ request: Request) async -> Response {
        await api {
            let query = try RunsQuery(parameters: QueryParameters.parse(request.uri.query))
            let (rows, total, counts) = try await pool.run { store in
                let page = try store.runs(status: query.status, nameContains: query.name, limit: query.perPage, offset: query.offset)
                return (page.rows, page.total, try store.runCounts())
            }
            return [
                "runs": .array(rows.map(DashboardJSON.run)), "total": .int(Int64(total)), "page": .int(Int64(query.page)),
                "per_page": .int(Int64(query.perPage)), "pages": .int(Int64(query.pageCount(total: total))),
                "counts": DashboardJSON.counts(counts),
            ]
        }
    }

    func runJSON(_ id: String) async -> Response {
        await api {
            let id = try RunID(parsing: id).value
            return try await pool.run { store -> JSON in
                guard try store.runStatus(id) != nil, let run = try store.run(id) else { throw DashboardError.notFound("no run with id \(id)") }
                let progress = try store.progress(ofRun: id)
                return [
                    "run": DashboardJSON.run(run), "node_counts": DashboardJSON.counts(progress.counts),
                    "running": .array(try store.runningNodes(ofRun: id, limit: 20).map(JSON.string)),
                    "actions": .array(
                        (AdminAction.available(for: run.status).map(\.rawValue) + Self.pauseActions(run)).filter { _ in layout.mayOperate }
                            .map(JSON.string)),
                ]
            }
        }
    }

    func nodesJSON(_ id: String, _ request: Request) async -> Response {
        await api {
            let id = try RunID(parsing: id).value
            let parameters = QueryParameters.parse(request.uri.query)
            let limit = try RunsQuery.number(parameters, "limit", default: 10_000, range: 1...100_000)
            let offset = try RunsQuery.number(parameters, "offset", default: 0, range: 0...Int(Int32.max))
            let nodes = try await pool.run { store -> [NodeRow] in
                guard try store.runStatus(id) != nil else { throw DashboardError.notFound("no run with id \(id)") }
                return try store.nodes(ofRun: id)
            }
            let page = nodes.dropFirst(offset).prefix(limit)
            return ["nodes": .array(page.map(DashboardJSON.node)), "total": .int(Int64(nodes.count))]
        }
    }

    func nodeJSON(_ id: String, _ request: Request) async -> Response {
        await api {
            let id = try RunID(parsing: id).value
            guard let key = QueryParameters.parse(request.uri.query)["key"], !key.isEmpty else {
                throw DashboardError.badRequest("key: give the node's key (?key=NODE)")
            }
            return try await pool.run { store -> JSON in
                guard try store.runStatus(id) != nil else { throw DashboardError.notFound("no run with id \(id)") }
                guard let node = try store.node(ofRun: id, key: key) else {
                    throw DashboardError.notFound("run \(id) has no node '\(key.prefix(200))'")
                }
                return DashboardJSON.nodeDetail(node, events: try store.events(ofRun: id, node: key, limit: 1000))
            }
        }
    }

    func eventsJSON(_ id: String, _ request: Request) async -> Response {
        await api {
            let id = try RunID(parsing: id).value
            let parameters = QueryParameters.parse(request.uri.query)
            let after = try RunsQuery.number(parameters, "after", default: 0, range: 0...Int(Int64.max >> 1))
            let limit = try RunsQuery.number(parameters, "limit", default: 1000, range: 1...Self.maxEvents)
            let events = try await pool.run { store -> [EventRow] in
                guard try store.runStatus(id) != nil else { throw DashboardError.notFound("no run with id \(id)") }
                return try store.events(ofRun: id, after: after, limit: limit)
            }
            return ["events": .array(events.map(DashboardJSON.event)), "last_id": .int(Int64(events.last?.id ?? after))]
        }
    }

    func graphSVG(_ id: String) async -> Response {
        do {
            let id = try RunID(parsing: id).value
            let svg = try await pool.run { store -> String in
                let (run, graph) = try Self.runAndGraph(store, id)
                return Self.svg(run: run, graph: graph, nodes: try store.nodes(ofRun: id))
            }
            return DashboardResponse.make(status: 200, contentType: "image/svg+xml; charset=utf-8", body: svg)
        } catch {
            return DashboardResponse.apiError(error)
        }
    }

    func workersJSON() async -> Response {
        await api {
            let (workers, coordinators) = try await pool.run { try ($0.liveWorkers(), $0.coordinators()) }
            return ["workers": .array(workers.map(DashboardJSON.worker)), "coordinators": .array(coordinators.map(DashboardJSON.coordinator))]
        }
    }

    /// The answer to an admin request (cancel, retry, signal) that `AdminAccess` refuses (nobody
    /// signed in, no `operate` scope, another site); nil to go on.
    func adminRefusal(_ request: Request) -> Response? {
        let header = { (name: String) in HTTPFields.Element.Name(name).flatMap { request.headers[$0] } }
        let decision = AdminAccess.decide(
            viewer: viewer, needs: .operate, origin: header("Origin"), host: request.head.authority, fetchSite: header("Sec-Fetch-Site"))
        return decision.error.map { DashboardResponse.apiError($0) }
    }

    /// The audit entry of a dashboard action by the signed-in token.
    func audit(_ action: String, _ target: String, source: String?) -> AuditEntry {
        AuditEntry(tokenName: viewer?.name, action: action, target: target, source: source.map { "\($0) (dashboard)" } ?? "dashboard")
    }

    /// POST cancel or retry: the token first, then the run's status, then the store's request (as
    /// `baton cancel` and `baton retry` make it); the coordinator applies it.
    func admin(_ action: AdminAction, _ id: String, _ request: Request, source: String?) async -> Response {
        if let refused = adminRefusal(request) { return refused }
        return await api(status: 202) {
            let id = try RunID(parsing: id).value
            let audit = audit("run.\(action.rawValue)", id, source: source)
            return try await pool.run(write: true) { store -> JSON in
                guard let status = try store.runStatus(id) else { throw DashboardError.notFound("no run with id \(id)") }
                if let refusal = action.refusal(runID: id, status: status) { throw refusal }
                let requestID =
                    switch action {
                    case .cancel: try store.request(.cancel, runID: id, reason: "cancelled: by request (baton dashboard)")
                    case .retry: try store.request(.retry, runID: id)
                    }
                try store.recordAudit(audit, status: 202)
                return [
                    "run_id": .string(id), "action": .string(action.rawValue), "request_id": .int(Int64(requestID)),
                    "status": .string(status.rawValue),
                ]
            }
        }
    }

    // MARK: helpers

    static func runAndGraph(_ store: Store, _ id: String) throws -> (RunRow, Graph) {
        guard try store.runStatus(id) != nil, let run = try store.run(id), let graph = try store.runGraph(id) else {
            throw DashboardError.notFound("no run with id \(id)")
        }
        return (run, graph)
    }

    static func svg(run: RunRow, graph: Graph, nodes: [NodeRow]) -> String {
        let states = nodes.map {
            NodeRunState(key: $0.key, procedure: $0.procedure, status: NodeStatus(rawValue: $0.status) ?? .pending, attempts: $0.attempts)
        }
        let drawing = GraphDrawing(run: graph, states: states, title: "\(run.name) · run \(run.id.prefix(8)) · \(run.status.rawValue)")
        return SVGRenderer().render(drawing)
    }

    private func page(_ body: () async throws -> String) async -> Response {
        do { return DashboardResponse.html(try await body()) } catch { return DashboardResponse.pageError(error, layout: layout) }
    }

    func api(status: Int = 200, _ body: () async throws -> JSON) async -> Response {
        do { return DashboardResponse.json(try await body(), status: status) } catch { return DashboardResponse.apiError(error) }
    }
}
