import BatonPostgres
import Testing

@Suite struct PostgresErrorTests {
    @Test func describesItselfOnOneLine() {
        let error = PostgresError(kind: .query, message: "  relation \"x\" does not exist\n", sqlState: "42P01")
        #expect(error.description == "postgres: relation \"x\" does not exist (42P01)")
        let multi = PostgresError(kind: .connection, message: "first\n\tsecond  \n", detail: "d\ne", hint: "h")
        #expect(multi.description == "postgres: first second; detail: d e; hint: h")
    }

    @Test func classifiesLostConnections() {
        #expect(PostgresError(kind: .connection, message: "x").isConnectionLost)
        #expect(PostgresError(kind: .query, message: "x", sqlState: "08006").isConnectionLost)
        for code in ["57P01", "57P02", "57P03"] {
            #expect(PostgresError(kind: .query, message: "x", sqlState: code).isConnectionLost)
        }
        #expect(!PostgresError(kind: .query, message: "x", sqlState: "42P01").isConnectionLost)
        #expect(!PostgresError(kind: .query, message: "x", sqlState: "57014").isConnectionLost)
        #expect(!PostgresError(kind: .invalidUsage, message: "x").isConnectionLost)
    }
}
