import BatonPostgres
import Foundation

/// The test database: `BATON_DATABASE_URL`, or the local one from `deploy/local/services.sh`.
let testDatabaseURL =
    ProcessInfo.processInfo.environment["BATON_DATABASE_URL"]
    ?? "postgresql://postgres@127.0.0.1:5432/baton"

/// A fresh connection of its own, so tests can run in parallel.
func connect() throws -> PGConnection {
    try PGConnection(url: testDatabaseURL)
}

/// A name no other test (or test run) uses.
func uniqueName(_ prefix: String) -> String {
    "\(prefix)_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))"
}
