import Baton
import Foundation

/// A run's timeline as text for a terminal (`baton show --timeline`): a time axis with labels, then
/// one line per node (by first activity) with its attempts and waits as a bar scaled to `width`
/// characters, its status, time and attempts, and a legend. ANSI colors when `color` is set.
public struct TimelineRenderer: Sendable {
    /// Characters per line, at least `minimumWidth`.
    public var width: Int
    public var color: Bool
    /// Nodes drawn at most (nil: all); a line says how many more there are.
    public var maxRows: Int?
    /// Appended to the "… N more nodes" line (for example how to see them all).
    public var moreHint: String

    public static let minimumWidth = 40

    public init(width: Int, color: Bool = false, maxRows: Int? = nil, moreHint: String = "") {
        self.width = max(width, Self.minimumWidth)
        self.color = color
        self.maxRows = maxRows
        self.moreHint = moreHint
    }

    /// The drawing, one string per line.
    public func lines(_ timeline: RunTimeline) -> [String] {
        let shown = maxRows.map { Array(timeline.rows.prefix($0)) } ?? timeline.rows
        guard !timeline.rows.isEmpty else { return ["(no nodes)"] }
        let summaries = shown.map(summary)
        let labelWidth = min(max(shown.map(\.key.count).max() ?? 4, 4), max(8, width / 4))
        let summaryWidth = min(summaries.map(\.count).max() ?? 0, 24)
        let barWidth = max(10, width - labelWidth - summaryWidth - 2)
        let scale = Scale(start: timeline.start, duration: timeline.duration, columns: barWidth, end: timeline.end)
        let pad = String(repeating: " ", count: labelWidth + 1)
        var out = axis(scale).map { pad + $0 }
        var used = Set<Character>()
        for (row, text) in zip(shown, summaries) {
            let cells = bar(row, scale)
            for cell in cells where cell != .empty { used.insert(cell.character) }
            let label = TextTable.truncate(row.key, labelWidth).padding(toLength: labelWidth, withPad: " ", startingAt: 0)
            out.append(label + " " + paint(cells) + " " + TextTable.truncate(text, 24))
        }
        if shown.count < timeline.rows.count {
            let more = timeline.rows.count - shown.count
            out.append("… \(more) more node\(more == 1 ? "" : "s")\(moreHint)")
        }
        let legend = TimelineCell.legend.filter { used.contains($0.0.character) || $0.0 == .waiting || $0.0 == .queued }
        var line = ""
        var length = 0
        for (cell, text) in legend {
            let entry = "\(cell.character) \(text)"
            if length > 0 && length + 2 + entry.count > width {
                out.append(line)
                line = ""
                length = 0
            }
            line += (length > 0 ? "  " : "") + paint([cell]) + " " + text
            length += (length > 0 ? 2 : 0) + entry.count
        }
        out.append(line)
        return out
    }

    /// The drawing as one text, ending with a newline.
    public func render(_ timeline: RunTimeline) -> String { lines(timeline).joined(separator: "\n") + "\n" }

    /// Where times fall on the bar.
    struct Scale {
        let start: Double
        let duration: Double
        let columns: Int
        let end: Double

        /// The column of time `t`.
        func column(_ t: Double) -> Int {
            guard duration > 0 else { return 0 }
            return min(columns - 1, max(0, Int(((t - start) / duration * Double(columns)).rounded(.down))))
        }

        /// The columns from `a` to `b`: at least one.
        func span(_ a: Double, _ b: Double) -> ClosedRange<Int> {
            let first = column(a)
            guard duration > 0 else { return first...first }
            let last = min(columns - 1, Int(((b - start) / duration * Double(columns)).rounded(.up)) - 1)
            return first...max(first, last)
        }
    }

    func bar(_ row: TimelineRow, _ scale: Scale) -> [TimelineCell] {
        var cells = [TimelineCell](repeating: .empty, count: scale.columns)
        func draw(_ cell: TimelineCell, _ a: Double, _ b: Double) {
            for i in scale.span(a, max(a, b)) where cells[i].rank <= cell.rank { cells[i] = cell }
        }
        for wait in row.waits { draw(.waiting, wait.from, wait.to ?? scale.end) }
        for attempt in row.attempts {
            if let queued = attempt.queued, attempt.started != nil || attempt.finished != nil || attempt.outcome == nil {
                draw(.queued, queued, attempt.started ?? attempt.finished ?? scale.end)
            }
            let ended: TimelineCell =
                attempt.outcome.map { attempt.condition && $0 == .succeeded ? .condition : .ended($0) } ?? .running
            if let started = attempt.started {
                draw(attempt.finished == nil ? .running : ended, started, attempt.finished ?? scale.end)
            } else if let finished = attempt.finished, attempt.outcome != nil {
                draw(ended, finished, finished)  // ended before it started: one mark where it ended
            }
        }
        if row.attempts.isEmpty, let outcome = row.outcome, let ended = row.ended { draw(.ended(outcome), ended, ended) }
        return cells
    }

    /// Status, time from first activity to end, and attempts when more than one: `failed 1.2s ×3`.
    func summary(_ row: TimelineRow) -> String {
        var text = row.status
        if let first = row.first, let ended = row.ended, !(row.attempts.isEmpty && row.waits.isEmpty) {
            text += " " + Self.duration(max(0, ended - first))
        }
        let attempts = Set(row.attempts.filter { !$0.condition }.map(\.attempt)).count
        if attempts > 1 { text += " ×\(attempts)" }
        return text
    }

    func paint(_ cells: [TimelineCell]) -> String {
        guard color else { return String(cells.map(\.character)) }
        var out = ""
        var start = 0
        while start < cells.count {
            var end = start + 1
            while end < cells.count && cells[end].color == cells[start].color { end += 1 }
            let text = String(cells[start..<end].map(\.character))
            out += cells[start] == .empty ? text : "\u{1B}[\(cells[start].color)m" + text + "\u{1B}[0m"
            start = end
        }
        return out
    }

    /// The time axis: labels above ticks (`+` on a line of `-`), one every few columns.
    func axis(_ scale: Scale) -> [String] {
        let step = Self.step(duration: scale.duration, columns: scale.columns)
        var labels = [Character](repeating: " ", count: scale.columns + 12)
        var ticks = [Character](repeating: "-", count: scale.columns)
        var t = 0.0
        var free = 0
        while t <= scale.duration + step / 1000 {
            let column = scale.column(scale.start + t)
            ticks[column] = "+"
            let text = Self.duration(t)
            if column >= free && column + text.count <= labels.count {
                for (i, c) in text.enumerated() { labels[column + i] = c }
                free = column + text.count + 1
            }
            if scale.duration <= 0 { break }
            t += step
        }
        let labelLine = String(labels).replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        return [labelLine, String(ticks)]
    }

    /// A round step (1, 2 or 5 times a power of ten seconds, or whole minutes and hours) that puts
    /// ticks at least 10 columns apart.
    static func step(duration: Double, columns: Int) -> Double {
        guard duration > 0 else { return 1 }
        let minimum = duration * 10 / Double(max(columns, 1))
        var steps: [Double] = []
        var power = 0.001
        while power < 60 {
            steps += [power, power * 2, power * 5]
            power *= 10
        }
        steps = steps.filter { $0 < 60 } + [60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400]
        return steps.first { $0 >= minimum } ?? (minimum / 86400).rounded(.up) * 86400
    }

    /// A duration as an axis label or a summary: `0`, `250ms`, `1.5s`, `12s`, `2m`, `1m30s`, `2h`, `1h15m`.
    public static func duration(_ seconds: Double) -> String {
        if seconds <= 0 { return "0" }
        if seconds < 1 { return "\(Int((seconds * 1000).rounded()))ms" }
        if seconds < 10 {
            let tenths = (seconds * 10).rounded() / 10
            return tenths == tenths.rounded() ? "\(Int(tenths))s" : String(format: "%.1fs", tenths)
        }
        if seconds < 60 { return "\(Int(seconds.rounded()))s" }
        let whole = Int(seconds.rounded())
        if whole < 3600 { return whole % 60 == 0 ? "\(whole / 60)m" : "\(whole / 60)m\(whole % 60)s" }
        let minutes = whole / 60
        return minutes % 60 == 0 ? "\(minutes / 60)h" : "\(minutes / 60)h\(minutes % 60)m"
    }
}
