import Baton
import BatonPostgres

/// Rows for one statement, as a FROM item `alias(columns…, ord)` in the records' order: a few
/// records go as one JSON document (`jsonb_to_recordset`: one parameter, the least to bind),
/// many as one text array per column (`unnest`: PostgreSQL reads those much faster than JSON
/// records; at 1,000 rows binding the JSON took 28–59 ms).
struct RecordSource {
    /// From this many records on, columns go as text arrays.
    static let arraysFrom = 32

    /// A column: its name in the records and in `alias`, and its SQL type.
    struct Column {
        let name: String
        let type: String
        var isJSON: Bool { type == "jsonb" }
    }

    /// The FROM item for `records`, its parameters added to `statement`.
    static func sql(_ records: [JSON], columns: [Column], alias: String, in statement: inout ApplyStatement) -> String {
        let names = (columns.map(\.name) + ["ord"]).joined(separator: ", ")
        if records.count < arraysFrom {
            let document = statement.parameter(JSON.array(records).serialized())
            let types = columns.map { "\($0.name) \($0.type)" }.joined(separator: ", ")
            return "rows from (jsonb_to_recordset(\(document)::jsonb) as (\(types))) with ordinality as \(alias)(\(names))"
        }
        let values = textColumns(records, columns)
        let arrays = columns.indices.map { "\(statement.parameter(PGArray.literal(values[$0])))::\(columns[$0].type)[]" }
        return "unnest(\(arrays.joined(separator: ", "))) with ordinality as \(alias)(\(names))"
    }

    /// The records' fields as one text array per column, read in one pass over each record's members
    /// (not a search per column): a missing field or JSON null is SQL NULL; jsonb columns get JSON,
    /// other columns strings as they are and numbers and booleans as PostgreSQL reads them.
    static func textColumns(_ records: [JSON], _ columns: [Column]) -> [[String?]] {
        let position = Dictionary(columns.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        var values = [[String?]](repeating: [], count: columns.count)
        for c in values.indices { values[c].reserveCapacity(records.count) }
        var row = [String?](repeating: nil, count: columns.count)
        for record in records {
            for c in row.indices { row[c] = nil }
            if case let .object(members) = record {
                for member in members.members.reversed() {  // the first of repeated names wins, as a lookup finds it
                    guard let c = position[member.key] else { continue }
                    if case .null = member.value {
                        row[c] = nil
                        continue
                    }
                    if columns[c].isJSON {
                        row[c] = member.value.serialized()
                        continue
                    }
                    switch member.value {
                    case let .string(text): row[c] = text
                    case let .bool(flag): row[c] = flag ? "true" : "false"
                    case let .int(number): row[c] = String(number)
                    default: row[c] = member.value.serialized()
                    }
                }
            }
            for c in row.indices { values[c].append(row[c]) }
        }
        return values
    }
}
