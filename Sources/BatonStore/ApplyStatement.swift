/// One SQL statement made of data-modifying CTEs, each with its own positional parameters:
/// how `Store.apply` writes a batch in one round trip. Parameters carry all data; the parts are
/// fixed SQL chosen by which kinds of change the batch holds.
struct ApplyStatement {
    private(set) var parameters: [String?] = []
    private var parts: [(name: String, sql: String)] = []

    /// Adds a parameter and returns its placeholder (`$n`).
    mutating func parameter(_ value: String) -> String {
        parameters.append(value)
        return "$\(parameters.count)"
    }

    /// Adds a data-modifying part; its rows are counted in the statement's result.
    mutating func add(_ name: String, _ sql: String) { parts.append((name, sql)) }

    var sql: String {
        let ctes = parts.map { "\($0.name) as (\n\($0.sql)\nreturning 1\n)" }.joined(separator: ", ")
        let count = parts.map { "(select count(*) from \($0.name))" }.joined(separator: " + ")
        return "with \(ctes)\nselect \(count)"
    }
}
