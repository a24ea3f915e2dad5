import BatonPostgres
import Testing

@Suite struct RedactionTests {
    @Test func masksPasswordInURI() {
        let redacted = redactedURL("postgresql://u:secret@h/db")
        #expect(redacted == "postgresql://u:***@h/db")
        #expect(!redacted.contains("secret"))
    }

    @Test func leavesURIWithoutPasswordAlone() {
        #expect(redactedURL("postgresql://postgres@127.0.0.1:5432/baton") == "postgresql://postgres@127.0.0.1:5432/baton")
        #expect(redactedURL("postgres://h/db?sslmode=disable") == "postgres://h/db?sslmode=disable")
    }

    @Test(arguments: [
        "postgresql://u:s3cr%40t@h:5432/db",
        "postgresql://u:se@cr/et@h/db",
        "postgresql://h/db?user=u&password=secret&sslmode=disable",
        "postgresql://u@h/db?PASSWORD=secret",
        "host=h user=u password=secret dbname=db",
        "host=h password = 'sec ret' dbname=db",
    ])
    func neverShowsThePassword(url: String) {
        let redacted = redactedURL(url)
        #expect(!redacted.contains("secret"))
        #expect(!redacted.contains("sec ret"))
        #expect(!redacted.contains("s3cr"))
        #expect(!redacted.contains("cr/et"))
        #expect(redacted.contains("***"))
    }

    @Test func keepsTheUsefulParts() {
        let redacted = redactedURL("postgresql://u:secret@db.example:6543/baton?sslmode=require&password=x")
        #expect(redacted == "postgresql://u:***@db.example:6543/baton?sslmode=require&password=***")
    }

    /// Several hosts (a primary and its standbys): libpq tries them in turn.
    @Test func keepsEveryHostOfAList() {
        let redacted = redactedURL("postgresql://u:secret@h1:5432,h2:5433,[::1]:5434/baton?target_session_attrs=read-write")
        #expect(redacted == "postgresql://u:***@h1:5432,h2:5433,[::1]:5434/baton?target_session_attrs=read-write")
    }

    @Test func aListWhoseHostsAllFailNamesThemWithoutThePassword() throws {
        let error = try #require(throws: PostgresError.self) {
            try PGConnection(url: "postgresql://u:s3cret@127.0.0.1:1,127.0.0.1:2/db?target_session_attrs=read-write")
        }
        #expect(!"\(error)".contains("s3cret"))
        #expect("\(error)".contains("port 1") && "\(error)".contains("port 2"), "\(error)")
    }

    @Test func failedConnectionNeverEchoesThePassword() throws {
        let error = try #require(throws: PostgresError.self) {
            try PGConnection(url: "postgresql://u:secret@127.0.0.1:1/db")
        }
        #expect(error.kind == .connection)
        #expect(!error.description.contains("secret"))
        #expect(!error.message.contains("secret"))
        #expect(error.description.contains("postgresql://u:***@127.0.0.1:1/db"))
    }

    @Test(arguments: [
        "postgresql://u:secret@127.0.0.1:notaport/db",
        "postgresql://u:secret@127.0.0.1/db?bogus=secret",
        "host=127.0.0.1 port=1 password=secret bogus",
        "host=127.0.0.1 port=secret password=secret",
    ])
    func malformedConnectionStringsNeverEchoThePassword(url: String) throws {
        let error = try #require(throws: PostgresError.self) { try PGConnection(url: url) }
        #expect(error.kind == .connection)
        #expect(!error.description.contains("secret"), "\(error)")
    }
}
