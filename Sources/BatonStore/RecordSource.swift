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
        let arrays = columns.map { column in
            "\(statement.parameter(textColumn(records, column.name, json: column.isJSON)))::\(column.type)[]"
        }
        return "unnest(\(arrays.joined(separator: ", "))) with ordinality as \(alias)(\(names))"
    }

    /// One field of JSON records as a text array literal: a missing field or JSON null is SQL NULL;
    /// with `json`, values are written as JSON (for jsonb columns), else strings as they are and
    /// numbers and booleans as PostgreSQL reads them.
    static func textColumn(_ records: [JSON], _ field: String, json: Bool = false) -> String {
        PGArray.literal(
            records.lazy.map { record -> String? in
                guard let value = record[field], value != .null else { return nil }
                if json { return value.serialized() }
                switch value {
                case let .string(text): return text
                case let .bool(flag): return flag ? "true" : "false"
                case let .int(number): return String(number)
                default: return value.serialized()
                }
            })
    }
}
