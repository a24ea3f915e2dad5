import ArgumentParser
import Baton
import BatonCommandLine
import BatonDashboard
import BatonHTTP
import BatonServer
import Foundation
import Logging

struct ServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "server",
        abstract: "Serve the dashboard's pages and the HTTP API (/api/v1, bearer tokens) on one port.",
        aliases: ["dashboard"])
    @Option(help: "Address to listen on, HOST:PORT.") var listen = "127.0.0.1:8080"
    @Option(help: "Allow cancel and retry to requests that present this token (default: $BATON_DASHBOARD_TOKEN).") var adminToken: String?
    @Option(help: "Requests per token on average through the API: N/s, N/m, or off.") var rateLimit = "50/s"
    @Option(help: "Requests a token may make at once beyond the average rate.") var rateBurst = 100
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let address: ListenAddress
        let token: String?
        do { address = try ListenAddress(parsing: listen, flag: "--listen") } catch { throw CLIFailure(error.description, exitCode: 2) }
        do {
            token = try DashboardConfiguration.adminToken(flag: adminToken, environment: ProcessInfo.processInfo.environment["BATON_DASHBOARD_TOKEN"])
        } catch { throw CLIFailure(error.message, exitCode: 2) }
        let rate: RateLimit
        switch RateLimit.parse(rateLimit) {
        case .success(let parsed): rate = parsed
        case .failure(let problem): throw CLIFailure("--rate-limit: \(problem)", exitCode: 2)
        }
        guard (1...1_000_000).contains(rateBurst) else { throw CLIFailure("--rate-burst: must be 1 to 1000000, not \(rateBurst)", exitCode: 2) }
        let rates = RateLimiter(limit: rate, burst: rateBurst)
        let limits = try Limits.fromEnvironment()
        try connection.openStore().close()  // a clear error now if the database or its schema is missing
        var logger = Logger(label: "baton.dashboard")
        logger.logLevel = .warning
        let server = DashboardServer(
            configuration: DashboardConfiguration(listen: address, databaseURL: connection.databaseURL, adminToken: token))
        let admin = token == nil ? "read-only" : "admin actions need the token"
        do {
            try await server.run(logger: logger, routes: { APIRoutes.register(on: $0, pool: $1, limits: limits, rates: rates) }) { bound in
                FileHandle.standardOutput.write(Data("baton dashboard on http://\(bound) (\(admin))\n".utf8))
            }
        } catch {
            throw CLIFailure("--listen \(address): cannot serve: \(error)")
        }
    }
}
