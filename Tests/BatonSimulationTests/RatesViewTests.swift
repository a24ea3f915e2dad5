import Baton
import BatonPostgres
import BatonStore
import Foundation
import Testing

/// `baton.rates`, the view operators read, counts a key's tokens as the coordinators do.
@Suite struct RatesViewTests {
    /// Two grants made 10 s ago at a limit of 2 per second, not told to their nodes yet: their
    /// tokens count until told (`Store.grantWaiting`), so the view shows the key full, not free.
    @Test func theViewCountsTheTokensOfGrantsNotToldYet() throws {
        try ContractBackend.grantingAlone { try viewCountsUntoldTokens() }
    }

    private func viewCountsUntoldTokens() throws {
        let graph = try GraphDecoder().decode(
            try JSONParser.parse(#"{"nodes": {"a": {"procedure": "p"}, "b": {"procedure": "p"}, "c": {"procedure": "p"}}}"#))
        let backend = try ContractBackend.postgres()
        let id = try backend.submit(graph)
        defer { backend.finish([id]) }
        let key = "view-\(id)"
        let rate = AdmissionClaim.rate(key, limit: 2, per: 1)
        let t0 = Date().addingTimeInterval(-10)
        _ = try backend.store.apply(
            [], heartbeats: [], handledRequests: [], confirmedBatch: nil,
            holds: ["a", "b", "c"].map { .insert(runID: id, request: AdmissionRequest(key: $0, claims: [rate])) }, now: t0)
        #expect(try backend.store.grantWaiting(now: t0).granted.filter { $0.runID == id }.map(\.key) == ["a", "b"])
        let sql = try PGConnection(url: ContractBackend.databaseURL)
        defer { sql.close() }
        let row = try sql.query("select used, waiting, next_token_at is not null as due from baton.rates where key = $1", [key])
        #expect(row.int(0, "used") == 2, "the two untold grants' tokens")
        #expect(row.int(0, "waiting") == 1)
        #expect(row[row: 0, column: "due"] == "t", "full, so the next token has a time")
    }
}
