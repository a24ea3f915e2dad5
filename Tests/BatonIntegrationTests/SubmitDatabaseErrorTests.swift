import Baton
import BatonPostgres
import Foundation
import Testing

extension Integration {
    /// `baton submit` looks up the live workers to know which procedures exist; when that lookup fails,
    /// it says so and stores nothing, rather than taking every procedure for unknown (or none for unserved).
    @Suite("submit when the live workers cannot be read", .serialized)
    @MainActor  // blocking waits here must not starve the cooperative pool the async unit tests need
    struct SubmitDatabaseErrorTests {
        @Test("a role that may store runs but not read baton.workers gets the database's error, and no run")
        func aDatabaseErrorIsReportedAndNothingIsStored() throws {
            _ = TestCluster()
            let sql = try TestCluster.sql()
            defer { sql.close() }
            // A login role of this test database's own (roles are cluster-wide), as an operator might give a CI job.
            var url = try #require(URLComponents(string: TestCluster.databaseURL))
            let database = url.path.dropFirst().filter { $0.isLetter || $0.isNumber || $0 == "_" }
            let role = "\(database)_submitter"
            try sql.execute(
                "do $$ begin if not exists (select from pg_roles where rolname = '\(role)') then create role \(role) login; end if; end $$")
            defer {
                _ = try? sql.execute("drop owned by \(role)")
                _ = try? sql.execute("drop role if exists \(role)")
            }
            try sql.execute("grant usage on schema baton to \(role)")
            try sql.execute("grant select, insert, update, delete on all tables in schema baton to \(role)")
            try sql.execute("grant usage, select on all sequences in schema baton to \(role)")
            try sql.execute("revoke select on baton.workers from \(role)")
            url.user = role
            url.password = nil
            let roleURL = try #require(url.string)

            let name = "unreadable-workers-\(UUID().uuidString.prefix(8))"
            let graph = try GraphFixtures.write(["name": .string(name), "nodes": ["a": ["procedure": "baton.echo", "input": ["x": 1]]]])
            let result = try TestCluster.cli(["submit", graph], environment: ["BATON_DATABASE_URL": roleURL])
            #expect(result.status == 1)
            #expect(result.stdout.isEmpty)
            #expect(
                result.stderr.hasPrefix("baton: cannot read the live workers: postgres: permission denied for table workers"),
                "stderr: \(result.stderr)")
            #expect(result.stderr.filter { $0 == "\n" }.count == 1, "one line: \(result.stderr)")
            #expect(try sql.query("select count(*) as n from baton.runs where name = $1", [name]).int(0, "n") == 0)
        }
    }
}
