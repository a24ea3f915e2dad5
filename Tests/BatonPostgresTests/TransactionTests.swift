import BatonPostgres
import Testing

@Suite struct TransactionTests {
    struct Boom: Error {}

    @Test func commitsWhenBodySucceeds() throws {
        let db = try connect()
        let table = uniqueName("t")
        try db.execute("create temp table \(table) (v text)")
        let value = try db.transaction { tx in
            try tx.execute("insert into \(table) values ($1)", ["a"])
            try tx.execute("insert into \(table) values ($1)", ["b"])
            return 42
        }
        #expect(value == 42)
        #expect(try db.query("select count(*) as n from \(table)").int(0, "n") == 2)
    }

    @Test func rollsBackAndRethrowsWhenBodyThrows() throws {
        let db = try connect()
        let table = uniqueName("t")
        try db.execute("create temp table \(table) (v text)")
        #expect(throws: Boom.self) {
            try db.transaction { tx in
                try tx.execute("insert into \(table) values ($1)", ["a"])
                throw Boom()
            }
        }
        #expect(try db.query("select count(*) as n from \(table)").int(0, "n") == 0)
        // The connection is idle again and usable for another transaction.
        try db.transaction { tx in try tx.execute("insert into \(table) values ($1)", ["b"]) }
        #expect(try db.query("select count(*) as n from \(table)").int(0, "n") == 1)
    }

    @Test func rollsBackWhenAStatementFails() throws {
        let db = try connect()
        let table = uniqueName("t")
        try db.execute("create temp table \(table) (id int primary key)")
        let error = try #require(throws: PostgresError.self) {
            try db.transaction { tx in
                try tx.execute("insert into \(table) values (1)")
                try tx.execute("insert into \(table) values (1)")
            }
        }
        #expect(error.sqlState == "23505")
        #expect(try db.query("select count(*) as n from \(table)").int(0, "n") == 0)
    }

    @Test func swallowedStatementErrorStillFailsTheCommit() throws {
        let db = try connect()
        let table = uniqueName("t")
        try db.execute("create temp table \(table) (id int primary key)")
        let error = try #require(throws: PostgresError.self) {
            try db.transaction { tx in
                try tx.execute("insert into \(table) values (1)")
                _ = try? tx.execute("insert into \(table) values (1)")
            }
        }
        #expect(error.sqlState == "25P02")
        #expect(try db.query("select count(*) as n from \(table)").int(0, "n") == 0)
    }

    @Test func nestedTransactionIsRefused() throws {
        let db = try connect()
        let error = try #require(throws: PostgresError.self) {
            try db.transaction { tx in try tx.transaction { _ in 1 } }
        }
        #expect(error.kind == .invalidUsage)
        #expect(try db.query("select 1 as n").int(0, "n") == 1)
    }

    @Test func lostConnectionInsideBodyRethrowsTheOriginalError() throws {
        let db = try connect()
        let killer = try connect()
        let pid = String(db.backendPID)
        let error = try #require(throws: PostgresError.self) {
            try db.transaction { tx in
                _ = try killer.query("select pg_terminate_backend($1::int, 5000)", [pid])
                try tx.execute("select 1")
            }
        }
        #expect(error.isConnectionLost)
    }
}
