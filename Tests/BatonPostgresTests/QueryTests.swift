import BatonPostgres
import Testing

@Suite struct QueryTests {
    static let awkwardStrings: [String?] = [
        "plain", "", nil, "héllo wörld 🌍 中文 עברית", "O'Reilly said \"hi\"",
        "'; drop table victims; --", "$1 \\ \\\\ %s %@ \n\t\r", "null", "NULL",
        String(repeating: "x", count: 100_000),
    ]

    @Test(arguments: awkwardStrings)
    func parametersRoundTripUnchanged(value: String?) throws {
        let db = try connect()
        let result = try db.query("select $1::text as v, $1::text is null as isnull", [value])
        #expect(result.rowCount == 1)
        #expect(result[row: 0, column: "v"] == value)
        #expect(result.bool(0, "isnull") == (value == nil))
    }

    @Test func parametersRoundTripThroughATable() throws {
        let db = try connect()
        let table = uniqueName("t")
        try db.execute("create temp table \(table) (id int primary key, v text)")
        for (id, value) in Self.awkwardStrings.enumerated() {
            #expect(try db.execute("insert into \(table) (id, v) values ($1, $2)", [String(id), value]) == 1)
        }
        // The injection-looking value must not have run: the table is still there.
        let result = try db.query("select id, v from \(table) order by id")
        #expect(result.rowCount == Self.awkwardStrings.count)
        for row in 0..<result.rowCount {
            #expect(result.int(row, "id") == row)
            #expect(result[row: row, column: "v"] == Self.awkwardStrings[row])
            #expect(result[row: row, column: 1] == Self.awkwardStrings[row])
        }
        #expect(try db.execute("update \(table) set v = $1 where id < $2", ["u", "3"]) == 3)
        #expect(try db.execute("delete from \(table)") == Self.awkwardStrings.count)
    }

    @Test func resultShape() throws {
        let db = try connect()
        let result = try db.query("select 1 as a, null::text as b, true as c, false as d, 'x' as a")
        #expect(result.columnNames == ["a", "b", "c", "d", "a"])
        #expect(result.columnCount == 5)
        #expect(result.rows == [["1", nil, "t", "f", "x"]])
        #expect(result.int(0, "a") == 1)  // the first column of that name
        #expect(result.int(0, "b") == nil)
        #expect(result.bool(0, "c") == true)
        #expect(result.bool(0, "d") == false)
        #expect(result[row: 0, column: "missing"] == nil)
        #expect(result.commandTag == "SELECT 1")
        let empty = try db.query("select 1 as a where false")
        #expect(empty.rowCount == 0 && empty.rows.isEmpty && empty.columnNames == ["a"])
    }

    @Test func largeResultIsCopiedQuickly() throws {
        let db = try connect()
        let clock = ContinuousClock()
        let start = clock.now
        let result = try db.query("select g as n, 'row ' || g as label, g % 2 = 0 as even from generate_series(1, 10000) g")
        var sum = 0
        for row in 0..<result.rowCount { sum += result.int(row, "n") ?? 0 }
        let elapsed = clock.now - start
        #expect(result.rowCount == 10_000)
        #expect(sum == 10_000 * 10_001 / 2)
        #expect(result[row: 9_999, column: "label"] == "row 10000")
        #expect(result.bool(9_999, "even") == true)
        #expect(elapsed < .seconds(2), "10,000 rows took \(elapsed)")
    }

    @Test func badSQLReportsMessageAndSQLState() throws {
        let db = try connect()
        let missing = uniqueName("missing")
        let error = try #require(throws: PostgresError.self) { try db.query("select * from \(missing)") }
        #expect(error.kind == .query)
        #expect(error.sqlState == "42P01")
        #expect(error.message == "relation \"\(missing)\" does not exist")
        #expect(error.description == "postgres: relation \"\(missing)\" does not exist (42P01)")
        #expect(!error.isConnectionLost)

        let syntax = try #require(throws: PostgresError.self) { try db.query("selec 1") }
        #expect(syntax.sqlState == "42601")
        #expect(syntax.message.contains("syntax error"))
        // The connection is still usable after errors.
        #expect(try db.query("select 2 as n").int(0, "n") == 2)
    }

    @Test func constraintViolationCarriesDetail() throws {
        let db = try connect()
        let table = uniqueName("t")
        try db.execute("create temp table \(table) (id int primary key)")
        try db.execute("insert into \(table) values ($1)", ["1"])
        let error = try #require(throws: PostgresError.self) {
            try db.execute("insert into \(table) values ($1)", ["1"])
        }
        #expect(error.sqlState == "23505")
        #expect(error.detail == "Key (id)=(1) already exists.")
    }

    @Test func nulByteInParameterIsRejectedBeforeSending() throws {
        let db = try connect()
        let error = try #require(throws: PostgresError.self) { try db.query("select $1::text", ["a\0b"]) }
        #expect(error.sqlState == "22021", "a NUL is the data's fault, as the server's own code says")
        #expect(error.disposition == .rejectData)
        #expect(try db.query("select 1 as n").int(0, "n") == 1)
    }

    @Test func copyIsRefusedAndTheConnectionRecovers() throws {
        let db = try connect()
        let out = try #require(throws: PostgresError.self) { try db.query("copy (select 1) to stdout") }
        #expect(out.kind == .protocolViolation)
        let table = uniqueName("t")
        try db.execute("create temp table \(table) (id int)")
        let into = try #require(throws: PostgresError.self) { try db.query("copy \(table) from stdin") }
        #expect(into.kind == .protocolViolation)
        #expect(try db.query("select 3 as n").int(0, "n") == 3)
    }
}
