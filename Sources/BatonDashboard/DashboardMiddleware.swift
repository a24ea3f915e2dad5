import Hummingbird

/// Before any route: answers only requests addressed to this machine's names when listening on
/// loopback (`HostCheck`), and gives every response, an unknown path's too, the security headers.
struct DashboardMiddleware<Context: RequestContext>: RouterMiddleware {
    let hostCheck: HostCheck

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard hostCheck.allows(request.head.authority) else {
            return DashboardResponse.json(["error": .string("this dashboard answers only requests to 127.0.0.1 or localhost")], status: 421)
        }
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            return DashboardResponse.json(["error": .string("no such page: \(request.uri.path)")], status: 404)
        } catch let error as HTTPError {
            return DashboardResponse.json(["error": .string(error.body ?? error.status.reasonPhrase)], status: error.status.code)
        }
    }
}
