import Baton
import Foundation

/// A column of `baton.nodes` that a commit writes, and how: its SQL type, how an update treats the
/// stored value, and its value in a staged row. `NodeColumn.all` lists them; the PostgreSQL store
/// builds its insert, its update and their records from that list, and the memory twin applies the
/// same rules to its rows, so a new column is one entry there (and its migration).
public struct NodeColumn: Sendable {
    /// The column's SQL type, and the case of `ColumnValue` it holds.
    public enum Kind: String, Sendable {
        case text, int, jsonb, timestamptz
    }

    /// How an update of a stored row treats the column (an inserted row takes the staged value).
    public enum Update: Sendable, Equatable {
        /// The staged value, nil clearing it.
        case replace
        /// The staged value when there is one, else the stored one; after a `reset`, the staged value
        /// (nil clearing it) when `clearedByReset`.
        case keep(clearedByReset: Bool)
        /// The staged value (nil clearing it) when `flag` is set; else nil after a `reset` when
        /// `clearedByReset`, else the stored value.
        case replaceIf(NodeFlag, clearedByReset: Bool)
        /// Written only when the row is inserted (what the graph says of a child).
        case insertOnly
    }

    public let name: String
    public let kind: Kind
    public let update: Update
    /// What an inserted row gets where the staged value is nil (nil: NULL).
    public let insertDefault: ColumnValue?
    /// The value of a staged row (nil: none, NULL).
    public let value: @Sendable (StagedNodeRow) -> ColumnValue?

    init(
        _ name: String, _ kind: Kind, _ update: Update, insertDefault: ColumnValue? = nil,
        value: @escaping @Sendable (StagedNodeRow) -> ColumnValue?
    ) {
        self.name = name
        self.kind = kind
        self.update = update
        self.insertDefault = insertDefault
        self.value = value
    }

    /// The new value of a stored row's column, by `update`, from `stored` and the staged row's value
    /// `staged` (`value(row)`, as the store keeps it).
    public func updated(_ stored: ColumnValue?, staged: ColumnValue?, by row: StagedNodeRow) -> ColumnValue? {
        switch update {
        case .replace: return staged
        case let .keep(clearedByReset): return clearedByReset && row.reset ? staged : staged ?? stored
        case let .replaceIf(flag, clearedByReset):
            if flag.isSet(in: row) { return staged }
            return clearedByReset && row.reset ? nil : stored
        case .insertOnly: return stored
        }
    }

    /// The value a row inserted from `row` gets.
    public func inserted(_ row: StagedNodeRow) -> ColumnValue? { value(row) ?? insertDefault }

    /// The position of the column `name` in `all` (a programming error if there is none).
    public static func index(_ name: String) -> Int {
        guard let i = all.firstIndex(where: { $0.name == name }) else { preconditionFailure("no node column \(name)") }
        return i
    }
}

/// A flag of a staged row that says how an update treats a column (`NodeColumn.Update`).
public enum NodeFlag: String, Sendable, CaseIterable {
    case setInput = "set_input"
    case setOutput = "set_output"
    case setFragment = "set_fragment"
    case setToken = "set_token"
    case reset

    /// Whether `row` has the flag set.
    public func isSet(in row: StagedNodeRow) -> Bool {
        switch self {
        case .setInput: row.setInput
        case .setOutput: row.setOutput
        case .setFragment: row.setFragment
        case .setToken: row.setToken
        case .reset: row.reset
        }
    }
}

/// A value of a node column as a commit writes it.
public enum ColumnValue: Sendable, Equatable {
    case text(String)
    case int(Int64)
    case json(JSON)
    case time(Date)

    /// A jsonb column's value: nil (NULL) for JSON null, as PostgreSQL reads a record's null field.
    public static func jsonb(_ value: JSON) -> ColumnValue? { value == .null ? nil : .json(value) }

    public var text: String? { if case let .text(v) = self { v } else { nil } }
    public var int: Int64? { if case let .int(v) = self { v } else { nil } }
    public var json: JSON? { if case let .json(v) = self { v } else { nil } }
    public var time: Date? { if case let .time(v) = self { v } else { nil } }
}
