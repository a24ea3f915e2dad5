import BatonPostgres
import Foundation
import Testing

/// Array literals carry any text, quotes and backslashes included, and NULLs, through `unnest`.
@Suite("PGArray")
struct PGArrayTests {
    @Test func literalsReadBackExactly() throws {
        let url = ProcessInfo.processInfo.environment["BATON_DATABASE_URL"] ?? "postgresql://postgres@127.0.0.1:5432/baton_test"
        let connection = try PGConnection(url: url)
        defer { connection.close() }
        let values: [String?] = ["plain", #"quote " and backslash \ "#, "{braces}, commas", "", nil, "ünïcode ✓", "NULL"]
        let r = try connection.query("select v from unnest($1::text[]) with ordinality as t(v, n) order by n", [PGArray.literal(values)])
        #expect((0..<r.rowCount).map { r[row: $0, column: "v"] } == values)
        #expect(PGArray.literal([String]()) == "{}")
    }
}
