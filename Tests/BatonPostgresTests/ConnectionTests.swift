import BatonPostgres
import Testing

@Suite struct ConnectionTests {
    @Test func connectsAndReportsOpen() throws {
        let db = try connect()
        #expect(db.isOpen)
        #expect(db.backendPID > 0)
        #expect(try db.query("show client_encoding")[row: 0, column: 0] == "UTF8")
    }

    /// A list of hosts with `target_session_attrs=read-write` (a primary and its standbys): libpq
    /// passes over a dead one and connects to the one that takes writes.
    @Test func aListOfHostsConnectsToTheOneThatAnswers() throws {
        let scheme = try #require(testDatabaseURL.range(of: "://"), "the test database URL is a URI")
        let rest = testDatabaseURL[scheme.upperBound...]
        let hostStart = rest.lastIndex(of: "@").map { rest.index(after: $0) } ?? rest.startIndex
        var url = String(testDatabaseURL[..<hostStart]) + "127.0.0.1:1," + String(testDatabaseURL[hostStart...])
        url += url.contains("?") ? "&" : "?"
        url += "target_session_attrs=read-write"
        let db = try PGConnection(url: url)
        defer { db.close() }
        #expect(try db.query("select pg_is_in_recovery()::text as standby")[row: 0, column: "standby"] == "false")
    }

    @Test func badPortFailsWithAClearError() throws {
        let error = try #require(throws: PostgresError.self) {
            try PGConnection(url: "postgresql://postgres@127.0.0.1:1/baton")
        }
        #expect(error.kind == .connection)
        #expect(error.isConnectionLost)
        #expect(error.description.hasPrefix("postgres: cannot connect to postgresql://postgres@127.0.0.1:1/baton: "))
        #expect(error.description.contains("refused"))
        #expect(!error.description.contains("\n"))
    }

    @Test func closedConnectionThrowsInsteadOfCrashing() throws {
        let db = try connect()
        db.close()
        db.close()  // idempotent
        #expect(!db.isOpen)
        #expect(db.backendPID == 0)
        let error = try #require(throws: PostgresError.self) { try db.execute("select 1") }
        #expect(error.kind == .connection)
        #expect(error.isConnectionLost)
        #expect(throws: PostgresError.self) { try db.query("select 1") }
        #expect(throws: PostgresError.self) { try db.listen("x") }
        #expect(throws: PostgresError.self) { try db.notify("x", payload: "y") }
        #expect(throws: PostgresError.self) { try db.waitForNotifications(timeout: 0.01) }
        #expect(throws: PostgresError.self) { try db.transaction { _ in 1 } }
    }

    @Test func serverSideTerminationIsReportedAsConnectionLost() throws {
        let victim = try connect()
        let killer = try connect()
        let pid = String(victim.backendPID)
        // Waits up to 5 s for the backend to exit, so no sleep is needed.
        #expect(try killer.query("select pg_terminate_backend($1::int, 5000) as ok", [pid]).bool(0, "ok") == true)
        let error = try #require(throws: PostgresError.self) { try victim.query("select 1") }
        #expect(error.isConnectionLost, "\(error)")
        #expect(!victim.isOpen)
        #expect(throws: PostgresError.self) { try victim.query("select 1") }
    }
}
