import Baton
import Hummingbird

/// The methods each API path answers, read from the router's own table (`Router.routes`), so a path
/// that exists answers an unknown method with 405 and an `Allow` header instead of the trie router's
/// 404. One source: what is registered is what is allowed; no second list to keep in step.
struct MethodFallback: Sendable {
    /// Each route's path (as the router matches it) and its methods, in the order first registered.
    let routes: [(path: RouterPath, methods: Set<String>)]

    /// The routes under `prefix` among `routes` (each a method and a path as registered on the router).
    init(routes: [(method: String, path: RouterPath)], prefix: String) {
        let prefix = RouterPath(prefix)
        var table: [(path: RouterPath, methods: Set<String>)] = []
        for route in routes where route.path.starts(with: prefix) {
            if let index = table.firstIndex(where: { $0.path == route.path }) {
                table[index].methods.insert(route.method)
            } else {
                table.append((route.path, [route.method]))
            }
        }
        self.routes = table
    }

    /// The methods `path` answers, sorted, or nil when no route has that path (an unknown path stays 404).
    func allowed(path: String) -> [String]? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        var methods: Set<String> = []
        for route in routes where route.path.count == parts.count && zip(route.path, parts).allSatisfy({ $0 ~= $1 }) {
            methods.formUnion(route.methods)
        }
        return methods.isEmpty ? nil : methods.sorted()
    }

    /// The answer to `method` on `path` when the router found no route for it: 405 when the path exists
    /// with other methods, nil (keep the 404) otherwise.
    func refusal(method: String, path: String) -> (error: APIError, allow: String)? {
        guard let methods = allowed(path: path), !methods.contains(method) else { return nil }
        let allow = methods.joined(separator: ", ")
        return (APIError(405, "method_not_allowed", "\(method) is not allowed on \(path); it answers \(allow)"), allow)
    }
}

/// Turns the router's 404 for a known API path with an unknown method into the API's 405 with `Allow`.
struct MethodFallbackMiddleware<Context: RequestContext>: RouterMiddleware {
    let fallback: MethodFallback

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            guard let refusal = fallback.refusal(method: request.method.rawValue, path: request.uri.path) else { throw error }
            return APIResponse.json(refusal.error.json, status: 405, headers: [("Allow", refusal.allow)])
        }
    }
}
