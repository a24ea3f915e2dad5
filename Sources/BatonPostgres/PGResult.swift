import CLibPQ

/// The rows of a query result, copied out of libpq (all values in text format).
///
/// A plain value: it owns no C memory and may move between threads freely.
/// Values are stored row-major in one flat array; column names are looked up
/// through a dictionary built once, so reading large results stays fast.
public struct PGResult: Sendable {
    /// The result's column names, in order.
    public let columnNames: [String]
    /// The number of rows.
    public let rowCount: Int
    /// The command tag, e.g. `SELECT 3`, `INSERT 0 1`, `COMMIT`.
    public let commandTag: String
    /// Rows affected by INSERT/UPDATE/DELETE/SELECT/MOVE/FETCH/COPY (`PQcmdTuples`); 0 otherwise.
    public let affectedRows: Int

    private let indexByName: [String: Int]
    private let values: [String?]

    /// Builds a result by hand, e.g. for tests of code that consumes results.
    public init(columnNames: [String], rows: [[String?]], commandTag: String = "", affectedRows: Int = 0) {
        precondition(rows.allSatisfy { $0.count == columnNames.count }, "every row needs one value per column")
        self.columnNames = columnNames
        self.rowCount = rows.count
        self.commandTag = commandTag
        self.affectedRows = affectedRows
        self.indexByName = Dictionary(columnNames.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        self.values = rows.flatMap { $0 }
    }

    /// Copies everything out of `result`; the caller still owns (and must `PQclear`) it.
    init(copying result: OpaquePointer) {
        let rows = Int(PQntuples(result))
        let columns = Int(PQnfields(result))
        var names: [String] = []
        names.reserveCapacity(columns)
        for column in 0..<columns {
            names.append(PQfname(result, Int32(column)).map { String(cString: $0) } ?? "?column?")
        }
        var values: [String?] = []
        values.reserveCapacity(rows * columns)
        for row in 0..<rows {
            for column in 0..<columns {
                let (r, c) = (Int32(row), Int32(column))
                if PQgetisnull(result, r, c) != 0 {
                    values.append(nil)
                } else {
                    let length = Int(PQgetlength(result, r, c))
                    let bytes = UnsafeRawPointer(PQgetvalue(result, r, c)!).assumingMemoryBound(to: UInt8.self)
                    values.append(String(decoding: UnsafeBufferPointer(start: bytes, count: length), as: UTF8.self))
                }
            }
        }
        self.columnNames = names
        self.rowCount = rows
        self.commandTag = PQcmdStatus(result).map { String(cString: $0) } ?? ""
        self.affectedRows = PQcmdTuples(result).flatMap { Int(String(cString: $0)) } ?? 0
        self.indexByName = Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        self.values = values
    }

    /// The number of columns.
    public var columnCount: Int { columnNames.count }

    /// The index of the first column called `name`, or nil if there is none.
    public func columnIndex(_ name: String) -> Int? { indexByName[name] }

    /// The value at `row`, `column` (nil for SQL NULL). Traps if either is out of range.
    public subscript(row row: Int, column column: Int) -> String? {
        precondition(row >= 0 && row < rowCount, "row \(row) out of range 0..<\(rowCount)")
        precondition(column >= 0 && column < columnNames.count, "column \(column) out of range 0..<\(columnNames.count)")
        return values[row * columnNames.count + column]
    }

    /// The value at `row` in the column called `column`: nil for SQL NULL or an unknown column.
    /// Traps if `row` is out of range.
    public subscript(row row: Int, column column: String) -> String? {
        guard let index = indexByName[column] else { return nil }
        return self[row: row, column: index]
    }

    /// All rows, each an array of values in column order.
    public var rows: [[String?]] {
        let width = columnNames.count
        guard width > 0 else { return Array(repeating: [], count: rowCount) }
        return (0..<rowCount).map { Array(values[$0 * width..<($0 + 1) * width]) }
    }

    /// The value as an `Int`, or nil for NULL, an unknown column, or non-integer text.
    public func int(_ row: Int, _ column: String) -> Int? {
        self[row: row, column: column].flatMap { Int($0) }
    }

    /// The value as an `Int64`, or nil for NULL, an unknown column, or non-integer text.
    public func int64(_ row: Int, _ column: String) -> Int64? {
        self[row: row, column: column].flatMap { Int64($0) }
    }

    /// The value of a `boolean` column (`t`/`f`), or nil for NULL, an unknown column, or other text.
    public func bool(_ row: Int, _ column: String) -> Bool? {
        switch self[row: row, column: column] {
        case "t": true
        case "f": false
        default: nil
        }
    }
}
