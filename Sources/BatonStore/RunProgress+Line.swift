import Baton

extension RunProgress {
    /// The start of the line `baton submit --wait` draws: a bar and count of the graph's own nodes,
    /// which are known up front, so the total never moves; the children that groups, maps and
    /// spawning nodes add are counted apart as they become known (`+40 children, 12 done`), and a
    /// group's node is done when its children are. Then failed and waiting nodes, children included.
    public func line(width: Int = 30) -> String {
        let total = top.values.reduce(0, +)
        let done = top.filter(\.key.isTerminal).values.reduce(0, +)
        let filled = total == 0 ? 0 : min(width, done * width / total)
        var line = "[" + String(repeating: "=", count: filled) + String(repeating: " ", count: width - filled) + "] \(done)/\(total) nodes done"
        let known = children.values.reduce(0, +)
        if known > 0 { line += " (+\(known) children, \(children.filter(\.key.isTerminal).values.reduce(0, +)) done)" }
        let all = counts
        if let failed = all[.failed], failed > 0 { line += ", \(failed) failed" }
        if let waiting = all[.waiting], waiting > 0 { line += ", \(waiting) waiting" }
        return line
    }
}
