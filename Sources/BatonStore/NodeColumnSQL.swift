import Baton
import BatonSeams

/// The SQL of a commit's node rows, made once from `NodeColumn.all`: the insert's columns, values and
/// record types, its conflict update, and the update's records and assignments.
enum NodeColumnSQL {
    /// `col, col, …` of every column, for the insert.
    static let insertColumns = NodeColumn.all.map(\.name).joined(separator: ", ")

    /// `u.col, …` (with `coalesce(u.col, default)` where a column has an insert default).
    static let insertValues = NodeColumn.all.map { c in
        c.insertDefault.map { "coalesce(u.\(c.name), \(literal($0, c.kind)))" } ?? "u.\(c.name)"
    }.joined(separator: ", ")

    /// `col type, …` of every column, for the insert's `jsonb_to_recordset`.
    static let insertTypes = NodeColumn.all.map { "\($0.name) \($0.kind.rawValue)" }.joined(separator: ", ")

    /// `col = excluded.col, …`: a child inserted again replaces the row it finds.
    static let conflictSet = NodeColumn.all.map { "\($0.name) = excluded.\($0.name)" }.joined(separator: ", ")

    /// The columns an update changes (the inserted-only ones left out).
    static let updated = NodeColumn.all.filter { $0.update != .insertOnly }

    /// The update's record columns: the row's identity, the flags, the columns it changes.
    static let updateColumns: [RecordSource.Column] =
        [.init(name: "run_id", type: "uuid"), .init(name: "run_submitted_at", type: "timestamptz"), .init(name: "key", type: "text")]
        + NodeFlag.allCases.map { .init(name: $0.rawValue, type: "bool") }
        + updated.map { .init(name: $0.name, type: $0.kind.rawValue) }

    /// `col = …` of each column an update changes, by its rule (`n` the stored row, `u` the record).
    static let updateSet = updated.map { c -> String in
        let (name, staged, stored) = (c.name, "u.\(c.name)", "n.\(c.name)")
        switch c.update {
        case .replace: return "\(name) = \(staged)"
        case .keep(clearedByReset: false): return "\(name) = coalesce(\(staged), \(stored))"
        case .keep(clearedByReset: true): return "\(name) = case when u.reset then \(staged) else coalesce(\(staged), \(stored)) end"
        case let .replaceIf(flag, clearedByReset: false): return "\(name) = case when u.\(flag.rawValue) then \(staged) else \(stored) end"
        case let .replaceIf(flag, clearedByReset: true):
            return "\(name) = case when u.\(flag.rawValue) then \(staged) when u.reset then null else \(stored) end"
        case .insertOnly: return "\(name) = \(stored)"  // not in `updated`; kept as it is, were it ever
        }
    }.joined(separator: ",\n    ")

    /// A constant as an SQL literal of `kind`.
    static func literal(_ value: ColumnValue, _ kind: NodeColumn.Kind) -> String {
        let text: String
        switch value {
        case let .text(v): text = v
        case let .int(v): return String(v)
        case let .json(v): text = v.serialized()
        case let .time(v): text = Timestamp.text(v)
        }
        return "'\(text.replacingOccurrences(of: "'", with: "''"))'::\(kind.rawValue)"
    }
}
