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
        api.get("/procedures") { request, _ in await handlers.listProcedures(request) }
        api.get("/workers") { request, _ in await handlers.listWorkers(request) }
        api.get("/coordinators") { request, _ in await handlers.listCoordinators(request) }
        api.get("/tokens") { request, _ in await handlers.listTokens(request) }
        api.post("/tokens") { request, context in await handlers.createToken(request, source: context.clientAddress) }
        api.delete("/tokens/:name") { request, context in
            await handlers.revokeToken(request, context.parameters.get("name") ?? "", source: context.clientAddress)
        }
        api.get("/audit") { request, _ in await handlers.listAudit(request) }
    }
}
