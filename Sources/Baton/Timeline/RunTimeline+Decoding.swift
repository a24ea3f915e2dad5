extension RunTimeline {
    /// The timeline that `json` (`RunTimeline.json`, as `GET /api/v1/runs/{id}/timeline` answers)
    /// describes, to the millisecond; nil if it is not that shape. `baton show --timeline --server` draws it.
    public init?(json: JSON) {
        guard let startMS = json["start_ms"]?.intValue, let durationMS = json["duration_ms"]?.intValue, let nodes = json["nodes"]?.arrayValue
        else { return nil }
        let start = Double(startMS) / 1000
        func time(_ value: JSON?) -> Double? { value?.intValue.map { start + Double($0) / 1000 } }
        var rows: [TimelineRow] = []
        for node in nodes {
            guard let key = node["key"]?.stringValue, let status = node["status"]?.stringValue else { return nil }
            var row = TimelineRow(key: key, status: status)
            row.first = time(node["first"])
            row.ended = time(node["ended"])
            row.outcome = node["outcome"]?.stringValue.flatMap(TimelineOutcome.init(rawValue:))
            row.attempts = (node["attempts"]?.arrayValue ?? []).map { a in
                TimelineAttempt(
                    attempt: a["attempt"]?.intValue ?? 0, condition: a["phase"]?.stringValue == "condition", queued: time(a["queued"]),
                    started: time(a["started"]), finished: time(a["finished"]),
                    outcome: a["outcome"]?.stringValue.flatMap(TimelineOutcome.init(rawValue:)))
            }
            row.waits = (node["waits"]?.arrayValue ?? []).compactMap { w in
                guard let reason = w["reason"]?.stringValue, let from = time(w["from"]) else { return nil }
                return TimelineWait(reason: reason, attempt: w["attempt"]?.intValue ?? 0, from: from, to: time(w["to"]), due: time(w["due"]))
            }
            rows.append(row)
        }
        self.init(start: start, end: start + Double(durationMS) / 1000, rows: rows)
    }
}
