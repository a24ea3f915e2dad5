import BatonPostgres
import Testing

@Suite struct PreparedQueryTests {
    @Test func aPreparedStatementIsReusedWithNewParametersAndMatchesTheUnpreparedResult() throws {
        let db = try connect()
        let sql = "select $1::int * 2 as doubled, $2::text as label"
        for n in 1...7 {  // past the server's five custom plans, onto its generic one
            let prepared = try db.preparedQuery(sql, [String(n), "n\(n)"])
            let plain = try db.query(sql, [String(n), "n\(n)"])
            #expect(prepared[row: 0, column: 0] == String(2 * n))
            #expect(prepared[row: 0, column: 1] == plain[row: 0, column: 1])
        }
        #expect(try db.query("select count(*) from pg_prepared_statements")[row: 0, column: 0] == "1")
    }

    @Test func aFailingPreparedStatementThrowsAndLeavesTheConnectionUsable() throws {
        let db = try connect()
        let error = try #require(throws: PostgresError.self) { try db.preparedQuery("select 1 / $1::int", ["0"]) }
        #expect(error.description.contains("division by zero"))
        #expect(try db.preparedQuery("select 1 / $1::int", ["1"])[row: 0, column: 0] == "1")
        // A statement that cannot even be prepared says why, and is not remembered as prepared.
        #expect(throws: PostgresError.self) { try db.preparedQuery("select nope from nowhere", []) }
        #expect(try db.query("select count(*) from pg_prepared_statements")[row: 0, column: 0] == "1")
    }
}
