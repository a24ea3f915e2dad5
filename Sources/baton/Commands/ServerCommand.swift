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
    @Flag(help: "Let anyone read the pages, the dashboard's JSON and /api/v1's reads without signing in or a token.")
    var publicRead = false
    @Option(help: "Serve HTTPS with this certificate chain (PEM); needs --tls-key.") var tlsCert: String?
    @Option(help: "The private key (PEM) of --tls-cert.") var tlsKey: String?
    /// Gone (the dashboard signs in with API tokens); kept only to say so.
    @Option(help: .hidden) var adminToken: String?
    @Option(help: "Requests per token on average through the API: N/s, N/m, or off.") var rateLimit = "50/s"
    @Option(help: "Requests a token may make at once beyond the average rate.") var rateBurst = 100
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        if adminToken != nil {
            throw CLIFailure(
                "--admin-token is gone: make a token with `baton token create NAME --scope read,operate` and sign in with it at /login",
                exitCode: 2)
        }
        if ProcessInfo.processInfo.environment["BATON_DASHBOARD_TOKEN"] != nil {
            FileHandle.standardError.write(
                Data("baton: BATON_DASHBOARD_TOKEN is ignored: sign in at /login with a token from `baton token create`\n".utf8))
        }
        let address: ListenAddress
        do { address = try ListenAddress(parsing: listen, flag: "--listen") } catch { throw CLIFailure(error.description, exitCode: 2) }
        let tls: DashboardConfiguration.TLSFiles?
        switch (tlsCert, tlsKey) {
        case (nil, nil): tls = nil
        case (let cert?, let key?): tls = DashboardConfiguration.TLSFiles(certificate: cert, key: key)
        case (nil, _?): throw CLIFailure("--tls-key needs --tls-cert (the certificate chain, PEM) too", exitCode: 2)
        case (_?, nil): throw CLIFailure("--tls-cert needs --tls-key (its private key, PEM) too", exitCode: 2)
        }
        if let tls {
            do { try ServerTLS.check(tls) } catch { throw CLIFailure(error.message, exitCode: 2) }
        }
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
            configuration: DashboardConfiguration(listen: address, databaseURL: connection.databaseURL, publicRead: publicRead, tls: tls))
        let access = publicRead ? "public reads; actions need a token" : "sign in with a token"
        let publicRead = self.publicRead
        do {
            try await server.run(
                logger: logger, routes: { APIRoutes.register(on: $0, pool: $1, limits: limits, rates: rates, publicRead: publicRead) }
            ) { bound in
                FileHandle.standardOutput.write(Data("baton dashboard on \(tls == nil ? "http" : "https")://\(bound) (\(access))\n".utf8))
            }
        } catch {
            throw CLIFailure("--listen \(address): cannot serve: \(error)")
        }
    }
}
