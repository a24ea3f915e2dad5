import Baton
import Foundation
import Testing

extension Integration {
    /// `baton server --tls-cert --tls-key`: HTTPS with the local CA's certificate (deploy/local/services.sh),
    /// checked with curl, and the session cookie marked Secure.
    @Suite("baton server over HTTPS", .serialized)
    @MainActor  // blocking waits here must not starve the cooperative pool the async unit tests need
    struct DashboardTLSTests {
        static var tlsDirectory: String { URL(fileURLWithPath: TLSTests.caFile).deletingLastPathComponent().path }

        @Test func badTLSFlagsAreOneLineAndExit2() throws {
            let cert = "\(Self.tlsDirectory)/server.pem"
            for (arguments, message) in [
                (["--tls-cert", cert], "baton: --tls-cert needs --tls-key (its private key, PEM) too\n"),
                (["--tls-key", cert], "baton: --tls-key needs --tls-cert (the certificate chain, PEM) too\n"),
                (
                    ["--tls-cert", "/nonexistent/cert.pem", "--tls-key", cert],
                    "baton: --tls-cert /nonexistent/cert.pem: cannot read the file (missing, or no permission)\n"
                ),
            ] {
                let result = try TestCluster.cli(["server", "--listen", "127.0.0.1:1"] + arguments)
                #expect(result.status == 2 && result.stderr == message && result.stdout.isEmpty, "\(result)")
            }
            let notAKey = try TestCluster.cli(["server", "--tls-cert", cert, "--tls-key", cert])
            #expect(notAKey.status == 2 && notAKey.stderr.hasPrefix("baton: --tls-key \(cert): not a PEM private key"), "\(notAKey)")
        }

        @Test func servesHTTPSAndTheSessionCookieIsSecure() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            let port = HTTPProbe.freePort()
            try cluster.start(
                [
                    "server", "--listen", "127.0.0.1:\(port)", "--tls-cert", "\(Self.tlsDirectory)/server.pem", "--tls-key",
                    "\(Self.tlsDirectory)/server.key",
                ], name: "server-tls")
            try TestCluster.waitUntil(30, "the server to listen") { cluster.log("server-tls").contains("on https://127.0.0.1:\(port) (") }
            let token = try APITests.token("tls-ops", "read,operate")
            let base = "https://127.0.0.1:\(port)"
            func curl(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
                try ChildProcess.run("/usr/bin/curl", ["-sS", "--max-time", "10", "--cacert", TLSTests.caFile] + arguments)
            }
            let whoami = try curl(["-H", "Authorization: Bearer \(token)", "\(base)/api/v1/whoami"])
            #expect(whoami.status == 0 && whoami.stdout.contains("\"name\":\"tls-ops\""), "\(whoami)")
            let login = try curl([
                "-D", "-", "-o", "/dev/null", "--data-urlencode", "token=\(token)", "--data-urlencode", "next=/workers", "\(base)/login",
            ])
            #expect(login.status == 0, "\(login)")
            let headers = login.stdout.lowercased()
            #expect(headers.hasPrefix("http/1.1 303") && headers.contains("location: /workers"), "\(login.stdout)")
            let cookie = try #require(login.stdout.split(separator: "\r\n").first { $0.lowercased().hasPrefix("set-cookie:") })
            #expect(cookie.contains("baton_session=baton_") && cookie.contains("; Secure") && cookie.contains("HttpOnly"), "\(cookie)")
            #expect(cookie.contains("SameSite=Strict"))
            // Without the local CA, curl refuses the certificate: it really is TLS with that certificate.
            #expect(try ChildProcess.run("/usr/bin/curl", ["-sS", "--max-time", "10", "\(base)/login"]).status != 0)
        }
    }
}
