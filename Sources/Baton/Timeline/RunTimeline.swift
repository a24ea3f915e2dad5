/// A run's timeline: per node, its attempts (queued, started, finished, outcome) and the times it
/// waited (and why), built from the run's nodes and their events. A value: `baton show --timeline`
/// draws it (`TimelineRenderer`), the dashboard's run page from its JSON (`RunTimeline+JSON`).
public struct RunTimeline: Sendable, Equatable {
    /// The earliest time on it (seconds since 1970); 0 when nothing happened yet.
    public var start: Double
    /// The latest: the last event, or `now` while the run goes on.
    public var end: Double
    /// Nodes by their first activity (then graph order); nodes that did nothing yet last.
    public var rows: [TimelineRow]

    public init(start: Double, end: Double, rows: [TimelineRow]) {
        self.start = start
        self.end = end
        self.rows = rows
    }

    /// The timeline of nodes `nodes` (key and status, in graph order) from their `events` (in the
    /// order they were written). `now` (seconds since 1970) is the end of what is still open, for a
    /// run that goes on; nil for a run that ended: what is still open then closes at its last event.
    public init(nodes: [(key: String, status: String)], events: [TimelineEvent], now: Double?) {
        var index: [String: Int] = [:]
        var rows: [TimelineRow] = []
        rows.reserveCapacity(nodes.count)
        for node in nodes where index[node.key] == nil {
            index[node.key] = rows.count
            rows.append(TimelineRow(key: node.key, status: node.status))
        }
        var earliest = Double.infinity
        var latest = -Double.infinity
        for event in events {
            guard let i = index[event.node] else { continue }
            rows[i].apply(event)
            earliest = min(earliest, event.at)
            latest = max(latest, event.at)
        }
        if let now, latest > -Double.infinity { latest = max(latest, now) }
        if now == nil, latest > -Double.infinity {
            for i in rows.indices { rows[i].close(at: latest) }
        }
        let order = rows.indices.sorted { a, b in
            switch (rows[a].first, rows[b].first) {
            case let (x?, y?): return x != y ? x < y : a < b
            case (.some, nil): return true
            case (nil, .some): return false
            case (nil, nil): return a < b
            }
        }
        self.init(
            start: earliest.isFinite ? earliest : 0, end: latest.isFinite ? latest : 0, rows: order.map { rows[$0] })
    }

    /// Seconds from the first to the last time on it.
    public var duration: Double { max(0, end - start) }
}
