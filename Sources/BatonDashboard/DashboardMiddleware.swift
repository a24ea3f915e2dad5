import Baton
import Hummingbird

/// Before any route: answers only requests addressed to this machine's names when listening on
/// loopback (`HostCheck`), and gives every response, an unknown path's too, the security headers.
struct DashboardMiddleware<Context: RequestContext>: RouterMiddleware {
    let hostCheck: HostCheck

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let api = request.uri.path.hasPrefix("/api/v1/")
        func answer(_ message: String, _ status: Int, code: String) -> Response {
            // The API's one error shape under /api/v1 (docs/api.md), the dashboard's elsewhere.
            let body: JSON =
                api ? ["error": ["code": .string(code), "message": .string(message), "details": []]] : ["error": .string(message)]
            return DashboardResponse.json(body, status: status)
        }
        guard hostCheck.allows(request.head.authority) else {
            return answer("this server answers only requests to 127.0.0.1 or localhost", 421, code: "bad_request")
        }
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            return answer(
                api ? "no such operation: \(request.method) \(request.uri.path)" : "no such page: \(request.uri.path)", 404, code: "not_found")
        } catch let error as HTTPError {
            return answer(
                error.body ?? error.status.reasonPhrase, error.status.code, code: error.status.code == 413 ? "payload_too_large" : "bad_request")
        }
    }
}
