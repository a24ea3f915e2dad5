import Baton
import BatonStore
import Foundation
import Testing

extension Integration {
    /// Both links over TLS, verified against the local CA that deploy/local/services.sh made.
    @Suite("TLS on both links", .serialized)
    @MainActor  // blocking waits here must not starve the cooperative pool the async unit tests need
    struct TLSTests {
        static var caFile: String {
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent(".data/tls/ca.pem").path
        }

        /// The test URLs, switched to TLS: libpq with full verification, AMQP on 5671 (librabbitmq checks
        /// the host name against the certificate's DNS names, so `localhost` rather than an address).
        static var tlsEnvironment: [String: String] {
            let database =
                TestCluster.databaseURL + (TestCluster.databaseURL.contains("?") ? "&" : "?")
                + "sslmode=verify-full&sslrootcert=\(caFile)"
            let vhost = URL(string: TestCluster.amqpURL)?.path ?? "/baton-test"
            return [
                "BATON_DATABASE_URL": database,
                "BATON_AMQP_URL": "amqps://guest:guest@localhost:5671\(vhost)?cacertfile=\(caFile)",
            ]
        }

        @Test("a graph runs with the coordinator and worker on TLS to PostgreSQL and RabbitMQ")
        func graphOverTLS() throws {
            try #require(FileManager.default.fileExists(atPath: Self.caFile), "run deploy/local/services.sh up: it makes the local CA")
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.start(["coordinator"], name: "coordinator", environment: Self.tlsEnvironment)
            try cluster.start(["worker", "--demo"], name: "worker", environment: Self.tlsEnvironment)
            let submit = try TestCluster.cli(
                [
                    "submit", GraphFixtures.examplesDirectory.appendingPathComponent("arithmetic.json").path,
                    "--wait", "--timeout", "60",
                ], environment: Self.tlsEnvironment)
            #expect(submit.status == 0, "\(submit.stderr)")
            // The coordinator's own database session is encrypted.
            let store = try TestCluster.store()
            defer { store.close() }
            let encrypted =
                try TestCluster.sql().query(
                    """
                    select count(*) as n from pg_stat_ssl s join pg_stat_activity a using (pid)
                    where a.datname = current_database() and s.ssl and a.pid <> pg_backend_pid()
                    """
                ).int(0, "n") ?? 0
            #expect(encrypted >= 1)
            #expect(!cluster.log("coordinator").contains("error"))
            #expect(!cluster.log("worker").contains("error"))
        }

        @Test("a broker certificate that cannot be verified is refused with a clear error")
        func unverifiableBrokerIsRefused() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            var environment = Self.tlsEnvironment
            environment["BATON_AMQP_URL"] = "amqps://guest:secret-pw@localhost:5671/baton-test"  // system CAs only
            try cluster.start(["worker"], name: "worker", environment: environment)
            try TestCluster.waitUntil(20, "the worker to report the TLS failure") {
                cluster.log("worker").contains("SSL peer cert verification failed")
            }
            #expect(!cluster.log("worker").contains("secret-pw"))
        }
    }
}
