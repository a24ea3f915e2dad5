import Baton
import BatonDashboard
import Hummingbird
import Testing

@testable import BatonServer

/// The 405 fallback's table, read from the API's real router: a known path with another method is a
/// 405 naming what it answers; an unknown path stays a 404.
@Suite("API method fallback")
struct MethodFallbackTests {
    /// The fallback of the routes `APIRoutes.register` puts on a router (the pool never connects).
    static func apiFallback() -> MethodFallback {
        let pool = StorePool(url: "postgresql://nobody@127.0.0.1:1/none", size: 1)
        defer { pool.close() }
        let router = Router(context: ServerRequestContext.self)
        APIRoutes.register(on: router, pool: pool, limits: GraphLimits(), rates: RateLimiter(limit: .off, burst: 1))
        return APIRoutes.methodFallback(router)
    }

    @Test func aKnownPathWithAnotherMethodIsRefusedWithWhatItAnswers() throws {
        let fallback = Self.apiFallback()
        let delete = try #require(fallback.refusal(method: "DELETE", path: "/api/v1/runs/0190f7a2-0000-7000-8000-000000000000"))
        #expect(delete.error.status == 405 && delete.error.code == "method_not_allowed" && delete.allow == "GET")
        #expect(delete.error.message == "DELETE is not allowed on /api/v1/runs/0190f7a2-0000-7000-8000-000000000000; it answers GET")
        let put = try #require(fallback.refusal(method: "PUT", path: "/api/v1/runs"))
        #expect(put.allow.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.contains("POST"), "\(put.allow)")
        #expect(fallback.refusal(method: "GET", path: "/api/v1/runs/x/cancel")?.allow == "POST")
        #expect(fallback.refusal(method: "POST", path: "/api/v1/tokens/someone")?.allow == "DELETE")
    }

    @Test func anUnknownPathOrAnAnsweredMethodIsNotA405() {
        let fallback = Self.apiFallback()
        #expect(fallback.refusal(method: "GET", path: "/api/v1/nothing-here") == nil)
        #expect(fallback.refusal(method: "DELETE", path: "/api/v1/runs/x/nodes/y/z") == nil)
        #expect(fallback.refusal(method: "GET", path: "/api/v1/runs/x") == nil)
        #expect(fallback.refusal(method: "GET", path: "/runs/x") == nil, "the dashboard's pages are not the API's")
    }

    @Test func everyRegisteredRouteAllowsItsOwnMethod() {
        let fallback = Self.apiFallback()
        #expect(fallback.routes.count >= 10)
        for route in fallback.routes {
            let concrete = "/" + route.path.map { "\($0)".hasPrefix("{") ? "x" : "\($0)" }.joined(separator: "/")
            #expect(fallback.allowed(path: concrete) == route.methods.sorted(), "\(route.path)")
        }
    }

    @Test func routesOfOnePathAreMergedAndOthersLeftOut() {
        let fallback = MethodFallback(
            routes: [("GET", "/api/v1/a/:id"), ("POST", "/api/v1/a/:id"), ("GET", "/api/v1/a/b"), ("GET", "/other/a/:id")], prefix: "/api/v1")
        #expect(fallback.routes.count == 2)
        #expect(fallback.allowed(path: "/api/v1/a/7") == ["GET", "POST"])
        #expect(fallback.allowed(path: "/api/v1/a/b") == ["GET", "POST"], "a literal segment and a capture both match")
        #expect(fallback.refusal(method: "PATCH", path: "/other/a/7") == nil)
    }
}
