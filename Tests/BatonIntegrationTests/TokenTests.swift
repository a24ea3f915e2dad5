import Baton
import BatonStore
import Foundation
import Testing

extension Integration {
    /// `baton token create|list|revoke` on real PostgreSQL: the secret shown once and stored only as a
    /// hash, revoked and expired tokens refused, bad input refused in one line with nothing stored,
    /// each change in the audit trail.
    @Suite("API tokens", .serialized)
    @MainActor  // blocking waits here must not starve the cooperative pool the async unit tests need
    struct TokenTests {
        static func count(_ sql: String) throws -> Int { try TestCluster.sql().query(sql).int(0, "n") ?? -1 }

        static func create(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
            try TestCluster.cli(["token", "create"] + arguments)
        }

        @Test("a token's secret is printed once and only its hash is stored; revoked, it is refused")
        func createListRevoke() throws {
            _ = try TestCluster.sql().execute("delete from baton.tokens where name like 'tt-%'")
            let made = try Self.create(["tt-ci", "--scope", "submit,read"])
            #expect(made.status == 0, "\(made.stderr)")
            let secret = TokenSecret(text: made.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
            #expect(secret.isWellFormed, "stdout is the secret alone: \(made.stdout)")
            #expect(made.stderr.contains("token 'tt-ci' made with scope(s) read, submit") && made.stderr.contains("shown only now"))
            // Stored as its SHA-256; the secret itself is nowhere in the table.
            #expect(try Self.count("select count(*)::int as n from baton.tokens where hash = sha256(convert_to('\(secret.text)', 'UTF8'))") == 1)
            #expect(try Self.count("select count(*)::int as n from baton.tokens t where strpos(t::text, '\(secret.text)') > 0") == 0)

            let store = try TestCluster.store()
            defer { store.close() }
            let found = try #require(try store.token(secret: secret))
            #expect(found.name == "tt-ci" && found.scopes == [.read, .submit])
            #expect(try store.token(secret: TokenSecret.generate()) == nil, "an unknown secret")

            let listed = try TestCluster.cli(["token", "list", "--json"])
            let rows = try JSONParser.parse(listed.stdout).arrayValue ?? []
            let row = try #require(rows.first { $0["name"] == "tt-ci" })
            #expect(row["state"] == "live" && row["prefix"] == .string(secret.prefix) && row["token"] == nil)
            #expect(!listed.stdout.contains(secret.text))

            let again = try Self.create(["tt-ci", "--scope", "read"])
            #expect(again.status == 2 && again.stderr.contains("a token named 'tt-ci' exists"), "\(again.stderr)")

            let revoked = try TestCluster.cli(["token", "revoke", "tt-ci"])
            #expect(revoked.status == 0 && revoked.stdout == "token tt-ci revoked\n", "\(revoked.stderr)")
            #expect(try store.token(secret: secret) == nil, "a revoked token is refused")
            let twice = try TestCluster.cli(["token", "revoke", "tt-ci"])
            #expect(twice.status == 2 && twice.stderr.contains("no token named 'tt-ci' that is not revoked"))
            #expect(!(try TestCluster.cli(["token", "list"]).stdout.contains("tt-ci ")), "revoked tokens leave the list")
            #expect(try TestCluster.cli(["token", "list", "--all"]).stdout.contains("revoked"))
            // The name can be used again once revoked; the new secret differs.
            let reused = try Self.create(["tt-ci", "--scope", "read", "--json"])
            let json = try JSONParser.parse(reused.stdout)
            #expect(reused.status == 0 && json["token"]?.stringValue != secret.text && json["scopes"] == ["read"], "\(reused.stderr)")

            let audit = try TestCluster.sql().query(
                "select action, source from baton.audit where target = 'tt-ci' order by id desc limit 3")
            #expect((0..<audit.rowCount).map { audit[row: $0, column: "action"] ?? "" } == ["token.create", "token.revoke", "token.create"])
            #expect(audit[row: 0, column: "source"]?.hasPrefix("cli (OS user ") == true)
        }

        @Test("a token past its --expires is refused and listed as expired")
        func expiry() throws {
            _ = try TestCluster.sql().execute("delete from baton.tokens where name like 'tt-%'")
            let made = try Self.create(["tt-short", "--scope", "read", "--expires", "1s"])
            #expect(made.status == 0, "\(made.stderr)")
            let secret = TokenSecret(text: made.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
            let store = try TestCluster.store()
            defer { store.close() }
            #expect(try store.token(secret: secret) != nil)
            try TestCluster.waitUntil(10, "the token to expire") { try store.token(secret: secret) == nil }
            let rows = try JSONParser.parse(try TestCluster.cli(["token", "list", "--json"]).stdout).arrayValue ?? []
            #expect(rows.first { $0["name"] == "tt-short" }?["state"] == "expired")
        }

        @Test(
            "bad input is one line, exit 2, and stores nothing",
            arguments: [
                (["Bad", "--scope", "read"], "lowercase"),
                (["tt-x", "--scope", "write"], "'write' is not a scope"),
                (["tt-x", "--scope", ""], "no scope given"),
                (["tt-x", "--scope", "read", "--expires", "soon"], "--expires: 'soon' is not a duration"),
                (["tt-x"], "--scope"),
            ])
        func badInput(_ arguments: [String], _ words: String) throws {
            let before = try Self.count("select count(*)::int as n from baton.tokens")
            let result = try Self.create(arguments)
            #expect(result.status == 2, "\(result.stderr)")
            #expect(result.stderr.contains(words), "\(result.stderr)")
            #expect(result.stdout.isEmpty)
            #expect(try Self.count("select count(*)::int as n from baton.tokens") == before)
        }
    }
}
