import Baton
import BatonDashboard
import Hummingbird

/// The routes of `/api/v1` (docs/api.md; the document `/api/v1/openapi.json`): registered beside the
/// dashboard's on one router, sharing its store pool.
public enum APIRoutes {
    /// `publicRead`: operations of scope `read` need no token (`--public-read`).
    public static func register(
        on router: Router<ServerRequestContext>, pool: StorePool, limits: GraphLimits, rates: RateLimiter, publicRead: Bool = false
    ) {
        let handlers = APIHandlers(pool: pool, limits: limits, rates: rates, publicRead: publicRead)
        // Last, once every route below is in: a known path with an unknown method answers 405 (MethodFallback).
        defer { router.add(middleware: MethodFallbackMiddleware(fallback: methodFallback(router))) }
        let api = router.group("/api/v1")
        api.get("/openapi.json") { _, _ in handlers.openAPI() }
        api.get("/whoami") { request, _ in await handlers.whoami(request) }
        api.post("/runs") { request, context in await handlers.createRun(request, source: context.clientAddress) }
        api.get("/runs") { request, _ in await handlers.listRuns(request) }
        api.post("/validate") { request, _ in await handlers.validate(request) }
        api.get("/runs/:id/events/stream") { request, context in await handlers.streamEvents(request, context.parameters.get("id") ?? "") }
        api.get("/runs/:id") { request, context in await handlers.getRun(request, context.parameters.get("id") ?? "") }
        api.get("/runs/:id/nodes") { request, context in await handlers.listNodes(request, context.parameters.get("id") ?? "") }
        api.get("/runs/:id/nodes/:key") { request, context in
            await handlers.getNode(request, context.parameters.get("id") ?? "", context.parameters.get("key") ?? "")
        }
        api.get("/runs/:id/events") { request, context in await handlers.listEvents(request, context.parameters.get("id") ?? "") }
        api.get("/runs/:id/timeline") { request, context in await handlers.timeline(request, context.parameters.get("id") ?? "") }
        api.post("/runs/:id/cancel") { request, context in
            await handlers.cancelRun(request, context.parameters.get("id") ?? "", source: context.clientAddress)
        }
        api.post("/runs/:id/retry") { request, context in
            await handlers.retryRun(request, context.parameters.get("id") ?? "", source: context.clientAddress)
        }
        api.post("/runs/:id/signals") { request, context in
            await handlers.signalRun(request, context.parameters.get("id") ?? "", source: context.clientAddress)
        }
        api.post("/bulk/cancel") { request, context in await handlers.bulkRequest(request, .cancel, source: context.clientAddress) }
        api.post("/bulk/retry") { request, context in await handlers.bulkRequest(request, .retry, source: context.clientAddress) }
        api.get("/procedures") { request, _ in await handlers.listProcedures(request) }
        api.get("/workers") { request, _ in await handlers.listWorkers(request) }
        api.get("/coordinators") { request, _ in await handlers.listCoordinators(request) }
        // Schedules (read; create and delete admin; pause, resume and trigger operate).
        api.get("/schedules") { request, _ in await handlers.listSchedules(request) }
        api.post("/schedules") { request, context in await handlers.createSchedule(request, source: context.clientAddress) }
        api.get("/schedules/:name") { request, context in await handlers.getSchedule(request, context.parameters.get("name") ?? "") }
        api.delete("/schedules/:name") { request, context in
            await handlers.deleteSchedule(request, context.parameters.get("name") ?? "", source: context.clientAddress)
        }
        api.post("/schedules/:name/pause") { request, context in
            await handlers.pauseSchedule(request, context.parameters.get("name") ?? "", paused: true, source: context.clientAddress)
        }
        api.post("/schedules/:name/resume") { request, context in
            await handlers.pauseSchedule(request, context.parameters.get("name") ?? "", paused: false, source: context.clientAddress)
        }
        api.post("/schedules/:name/trigger") { request, context in
            await handlers.triggerSchedule(request, context.parameters.get("name") ?? "", source: context.clientAddress)
        }
        // Pauses (read; pause and resume operate).
        api.get("/pauses") { request, _ in await handlers.listPauses(request) }
        for kind in PauseKind.allCases {
            for (verb, paused) in [("pause", true), ("resume", false)] {
                // A run's path parameter is `id`, as in every other `/runs/{id}` route (the router refuses two names).
                let parameter = kind == .run ? "id" : "name"
                api.post("/\(kind.rawValue)s/:\(parameter)/\(verb)") { request, context in
                    await handlers.setPause(request, kind, context.parameters.get(parameter) ?? "", paused: paused, source: context.clientAddress)
                }
            }
        }
        // Triggers (admin) and the events that start them (POST submit, GET read).
        api.get("/triggers") { request, _ in await handlers.listTriggers(request) }
        api.post("/triggers") { request, context in await handlers.createTrigger(request, source: context.clientAddress) }
        api.get("/triggers/:name") { request, context in await handlers.getTrigger(request, context.parameters.get("name") ?? "") }
        api.delete("/triggers/:name") { request, context in
            await handlers.deleteTrigger(request, context.parameters.get("name") ?? "", source: context.clientAddress)
        }
        api.post("/events") { request, context in await handlers.postEvent(request, source: context.clientAddress) }
        api.get("/events") { request, _ in await handlers.listTriggerEvents(request) }
        api.get("/tokens") { request, _ in await handlers.listTokens(request) }
        api.post("/tokens") { request, context in await handlers.createToken(request, source: context.clientAddress) }
        api.delete("/tokens/:name") { request, context in
            await handlers.revokeToken(request, context.parameters.get("name") ?? "", source: context.clientAddress)
        }
        api.get("/webhooks") { request, _ in await handlers.listWebhooks(request) }
        api.post("/webhooks") { request, context in await handlers.createWebhook(request, source: context.clientAddress) }
        api.get("/webhooks/:id") { request, context in await handlers.getWebhook(request, context.parameters.get("id") ?? "") }
        api.delete("/webhooks/:id") { request, context in
            await handlers.deleteWebhook(request, context.parameters.get("id") ?? "", source: context.clientAddress)
        }
        api.get("/webhooks/:id/deliveries") { request, context in
            await handlers.listDeliveries(request, context.parameters.get("id") ?? "")
        }
        api.get("/audit") { request, _ in await handlers.listAudit(request) }
    }

    /// The methods of every `/api/v1` route registered on `router`.
    static func methodFallback(_ router: Router<ServerRequestContext>) -> MethodFallback {
        MethodFallback(routes: router.routes.map { ($0.method.rawValue, $0.path) }, prefix: "/api/v1")
    }
}
