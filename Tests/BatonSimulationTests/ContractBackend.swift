import Baton
import BatonPostgres
import BatonStore
import Foundation

@testable import BatonSimulation

/// One side of the store contract: the real `Store` on PostgreSQL, or a `MemoryStore` connection.
/// The operations the simulator uses beyond `CoordinatorStore` (submit, request) go through it too.
struct ContractBackend {
    /// A database of the contract tests' own, beside the integration tests' (created on first use):
    /// their coordinators hold the leadership lock of theirs, which the leadership contract takes.
    static let databaseURL: String = {
        let base = ProcessInfo.processInfo.environment["BATON_DATABASE_URL"] ?? "postgresql://postgres@127.0.0.1:5432/baton_test"
        guard let slash = base.lastIndex(of: "/") else { return base }
        let query = base[slash...].firstIndex(of: "?").map { String(base[$0...]) } ?? ""
        let url = base[..<slash] + "/baton_contract" + query
        if let admin = try? PGConnection(url: base) {
            _ = try? admin.execute("create database baton_contract")  // 42P04 when it exists: fine
            admin.close()
        }
        return String(url)
    }()

    private static let granting = NSLock()

    /// Runs `body` while no other test of this process grants holds on the contract database:
    /// `grantWaiting` grants the waiting holds of every run at the `now` it is given, and a test that
    /// grants at a time of its own (10 s ago, 1.45 s on) would grant another test's holds, or expire
    /// its tokens, in the middle of that test's steps.
    static func grantingAlone<T>(_ body: () throws -> T) rethrows -> T {
        granting.lock()
        defer { granting.unlock() }
        return try body()
    }

    let name: String
    let store: any CoordinatorStore
    let submit: (Graph) throws -> String
    let request: (RunRequest.Kind, String) throws -> Int
    /// A run's events as `node kind at detail` lines (the time of `submitted`, which PostgreSQL stamps, left out).
    let events: (String) throws -> [String]
    /// A run's nodes as `key status error error_type` lines, in key order.
    let nodeErrors: (String) throws -> [String]
    /// A run's nodes as `key column value` lines, one for each column of `NodeColumn.all`, in key order.
    let columns: (String) throws -> [String]
    /// Another session with the same database.
    let connect: () throws -> any CoordinatorStore
    /// The database, for the memory side.
    var memory: MemoryStore? = nil
    /// The database, for the PostgreSQL side.
    var postgres: Store? = nil
    /// Deletes what the test wrote (for PostgreSQL, the runs it submitted) and closes the connection.
    let finish: ([String]) -> Void

    /// A `Store` on the test database, migrated.
    static func postgres() throws -> ContractBackend {
        let store = try Store(url: databaseURL)
        try store.migrate()
        return ContractBackend(
            name: "postgres", store: store, submit: { try store.submit($0).id },
            request: { try store.request($0, runID: $1) },
            events: { id in try store.events(ofRun: id).map { line($0.node, $0.kind, $0.at, $0.detail) } },
            nodeErrors: { id in try store.nodes(ofRun: id).sorted { $0.key < $1.key }.map { errorLine($0.key, $0.status, $0.error, $0.errorType) } },
            columns: { id in
                let sql = try PGConnection(url: databaseURL)
                defer { sql.close() }
                let selected = NodeColumn.all.map { c in
                    c.kind == .timestamptz ? "(extract(epoch from \(c.name)) * 1000000)::bigint::text as \(c.name)" : "\(c.name)::text as \(c.name)"
                }
                let r = try sql.query(
                    "select key, \(selected.joined(separator: ", ")) from baton.nodes where run_id = $1::uuid order by key", [id])
                return try (0..<r.rowCount).flatMap { i in
                    try NodeColumn.all.map { c in
                        let text = r[row: i, column: c.name]
                        let value = try c.kind == .jsonb ? text.map { try JSONParser.parse($0).serialized(sortedKeys: true) } : text
                        return columnLine(r[row: i, column: "key"] ?? "?", c.name, value)
                    }
                }
            },
            connect: { try Store(url: databaseURL) }, postgres: store,
            finish: { ids in
                if let sql = try? PGConnection(url: databaseURL) {
                    for id in ids { _ = try? sql.execute("delete from baton.runs where id = $1::uuid", [id]) }
                    sql.close()
                }
                store.close()
            })
    }

    /// A connection to a new `MemoryStore` whose clock is `clock`.
    static func memory(clock: @escaping () -> Date = { Date(timeIntervalSince1970: 1_800_000_000) }) throws -> ContractBackend {
        let database = MemoryStore(clock: clock)
        let store = try database.connect()
        return ContractBackend(
            name: "memory", store: store, submit: { database.submit($0) },
            request: { try database.request($0, runID: $1) },
            events: { id in database.events(ofRun: id).map { line($0.node, $0.kind, MemoryTimestamp.text($0.at), $0.detail) } },
            nodeErrors: { id in
                database.nodes(ofRun: id).sorted { $0.key < $1.key }.map { errorLine($0.key, $0.status.rawValue, $0.error, $0.errorType) }
            },
            columns: { id in
                database.nodes(ofRun: id).sorted { $0.key < $1.key }.flatMap { row in
                    zip(NodeColumn.all, row.values).map { c, value in
                        let text: String? =
                            switch value {
                            case let .text(v): v
                            case let .int(v): String(v)
                            case let .json(v): v.serialized(sortedKeys: true)
                            case let .time(v): String(Int64((v.timeIntervalSince1970 * 1_000_000).rounded()))
                            case nil: nil
                            }
                        return columnLine(row.key, c.name, text)
                    }
                }
            },
            connect: { try database.connect() }, memory: database,
            finish: { _ in store.close() })
    }

    /// One node's error columns as compared.
    static func errorLine(_ key: String, _ status: String, _ error: String?, _ type: String?) -> String {
        "\(key) \(status) \(error ?? "-") \(type ?? "-")"
    }

    /// One column of a node's row as compared.
    static func columnLine(_ key: String, _ column: String, _ value: String?) -> String { "\(key) \(column) \(value ?? "NULL")" }

    /// One event as compared.
    static func line(_ node: String?, _ kind: String, _ at: String, _ detail: JSON) -> String {
        "\(node ?? "-") \(kind) \(kind == "submitted" ? "-" : at) \(detail.serialized(sortedKeys: true))"
    }
}
