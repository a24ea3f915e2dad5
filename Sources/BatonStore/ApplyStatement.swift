/// One SQL statement made of data-modifying CTEs, each with its own positional parameters:
/// how `Store.apply` writes a batch in one round trip. Parameters carry all data; the parts are
/// fixed SQL chosen by which kinds of change the batch holds.
struct ApplyStatement {
    private(set) var parameters: [String?] = []
    private var parts: [(name: String, sql: String)] = []
    private var checks: [(name: String, sql: String)] = []
    private var numbersBatch = false

    /// Adds a parameter and returns its placeholder (`$n`).
    mutating func parameter(_ value: String) -> String {
        parameters.append(value)
        return "$\(parameters.count)"
    }

    /// Adds a data-modifying part; its rows are counted in the statement's result.
    mutating func add(_ name: String, _ sql: String) { parts.append((name, sql)) }

    /// Adds a check that must run for the statement to succeed (it raises to refuse the whole
    /// statement), such as the partition fence; it returns one row, read as column `name`.
    mutating func addCheck(_ name: String, _ sql: String) { checks.append((name, sql)) }

    /// Draws the batch's number from `baton.dispatch_batches` once, as `(select id from batch)`
    /// for the parts and as column `batch` of the result.
    mutating func addBatchNumber() { numbersBatch = true }

    var sql: String {
        var ctes = parts.map { "\($0.name) as (\n\($0.sql)\nreturning 1\n)" }
        if numbersBatch { ctes.insert("batch as (select nextval('baton.dispatch_batches') as id)", at: 0) }
        ctes.insert(contentsOf: checks.map { "\($0.name) as (\n\($0.sql)\n)" }, at: 0)
        let count = parts.isEmpty ? "0" : parts.map { "(select count(*) from \($0.name))" }.joined(separator: " + ")
        // A check is read in the result, so it runs (PostgreSQL skips a plain query no one reads).
        return "with \(ctes.joined(separator: ", "))\nselect \(count) as written" + (numbersBatch ? ", (select id from batch) as batch" : "")
            + checks.map { ", (select count(*) from \($0.name)) as \($0.name)" }.joined()
    }
}
