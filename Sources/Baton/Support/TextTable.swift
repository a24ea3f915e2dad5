/// Fixed-width text tables, as the CLI prints them and a test run describes itself.
public enum TextTable {
    /// The header line, then one line per row: each column padded to its widest cell, two spaces
    /// apart; the last column is not padded.
    public static func lines(_ header: [String], _ rows: [[String]]) -> [String] {
        var widths = header.map(\.count)
        for row in rows { for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.count) } }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { i, c in i == cells.count - 1 ? c : c.padding(toLength: widths[i], withPad: " ", startingAt: 0) }
                .joined(separator: "  ")
        }
        return [line(header)] + rows.map(line)
    }

    /// `text` cut to `limit` characters with an ellipsis.
    public static func truncate(_ text: String, _ limit: Int) -> String {
        text.count <= limit ? text : String(text.prefix(limit - 1)) + "…"
    }
}
