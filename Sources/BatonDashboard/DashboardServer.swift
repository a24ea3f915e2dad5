import Baton
import BatonHTTP
import Foundation
import Hummingbird
import HummingbirdTLS
import Logging

/// `baton dashboard`: the pages and the JSON API over the run history, served by Hummingbird. The
/// routing is here and thin; `DashboardHandlers` does the work.
public struct DashboardServer: Sendable {
    public let configuration: DashboardConfiguration

    public init(configuration: DashboardConfiguration) { self.configuration = configuration }

    /// Serves until SIGINT or SIGTERM; `onListening` gets the address once the socket is bound
    /// (with the port the system chose, for port 0).
    /// `routes` adds more routes (the API's) on the same router, sharing the store pool.
    public func run(
        logger: Logger, routes: @Sendable (Router<ServerRequestContext>, StorePool) -> Void = { _, _ in },
        onListening: @escaping @Sendable (ListenAddress) -> Void
    ) async throws {
        let pool = StorePool(url: configuration.databaseURL, size: configuration.connections)
        defer { pool.close() }
        let handlers = DashboardHandlers(pool: pool, secureCookies: configuration.tls != nil)
        let router = Router(context: ServerRequestContext.self)
        router.add(middleware: DashboardMiddleware(hostCheck: HostCheck(listen: configuration.listen)))
        router.add(middleware: SignInMiddleware(pool: pool, publicRead: configuration.publicRead))
        router.get("/login") { request, _ in handlers.loginPage(request) }
        router.post("/login") { request, context in await handlers.login(request, source: context.clientAddress) }
        router.post("/logout") { request, _ in await handlers.logout(request) }
        router.get("/") { request, context in await handlers.as(context.viewer).runsPage(request) }
        router.get("/runs/:id") { _, context in await handlers.as(context.viewer).runPage(Self.runID(context)) }
        router.get("/workers") { _, context in await handlers.as(context.viewer).workersPage() }
        router.get("/schedules") { _, context in await handlers.as(context.viewer).schedulesPage() }
        router.get("/audit") { _, context in await handlers.as(context.viewer).auditPage() }
        router.get("/events") { _, context in await handlers.as(context.viewer).eventsPage() }
        router.get("/assets/dashboard.js") { _, _ in
            DashboardResponse.make(
                status: 200, contentType: "text/javascript; charset=utf-8", body: DashboardAssets.script, cache: true)
        }
        router.get("/assets/dashboard.css") { _, _ in
            DashboardResponse.make(
                status: 200, contentType: "text/css; charset=utf-8", body: DashboardAssets.style, cache: true)
        }
        router.get("/assets/favicon.svg") { _, _ in
            DashboardResponse.make(status: 200, contentType: "image/svg+xml", body: DashboardAssets.favicon, cache: true)
        }
        router.get("/api/runs") { request, _ in await handlers.runsJSON(request) }
        router.get("/api/runs/:id") { _, context in await handlers.as(context.viewer).runJSON(Self.runID(context)) }
        router.get("/api/runs/:id/nodes") { request, context in await handlers.nodesJSON(Self.runID(context), request) }
        router.get("/api/runs/:id/node") { request, context in await handlers.nodeJSON(Self.runID(context), request) }
        router.get("/api/runs/:id/events") { request, context in await handlers.eventsJSON(Self.runID(context), request) }
        router.get("/api/runs/:id/graph.svg") { _, context in await handlers.graphSVG(Self.runID(context)) }
        router.get("/api/runs/:id/timeline.json") { _, context in await handlers.timelineJSON(Self.runID(context)) }
        router.get("/api/workers") { _, _ in await handlers.workersJSON() }
        for action in AdminAction.allCases {
            router.post("/api/runs/:id/\(action.rawValue)") { request, context in
                await handlers.as(context.viewer).admin(action, Self.runID(context), request, source: context.clientAddress)
            }
        }
        for (verb, paused) in [("pause", true), ("resume", false)] {
            router.post("/api/runs/:id/\(verb)") { request, context in
                await handlers.as(context.viewer).pauseRun(Self.runID(context), paused: paused, request, source: context.clientAddress)
            }
        }
        router.post("/api/runs/:id/signal") { request, context in
            await handlers.as(context.viewer).signal(Self.runID(context), request, source: context.clientAddress)
        }
        routes(router, pool)
        let listen = configuration.listen
        let tls = try configuration.tls.map { files throws(DashboardError) in try ServerTLS.configuration(files) }
        let app = Application(
            router: router, server: try tls.map { try .tls(.http1(), tlsConfiguration: $0) } ?? .http1(),
            configuration: ApplicationConfiguration(address: .hostname(listen.host, port: listen.port), serverName: nil),
            onServerRunning: { channel in
                onListening(ListenAddress(host: listen.host, port: channel.localAddress?.port ?? listen.port))
            },
            logger: logger)
        try await app.runService()
    }

    /// The `:id` path parameter, percent-decoded (checked by `RunID` in the handlers).
    static func runID(_ context: ServerRequestContext) -> String {
        let raw = context.parameters.get("id") ?? ""
        return raw.removingPercentEncoding ?? raw
    }
}
