extension RunTimeline {
    /// The timeline as `baton show --timeline --json` and the dashboard's `timeline.json` give it:
    /// `start_ms` (milliseconds since 1970) and `duration_ms`, then every time relative to the start,
    /// in whole milliseconds (null: not recorded, or still open); nodes in the timeline's order.
    /// See cli.md for the shape.
    public var json: JSON {
        let origin = start
        func ms(_ time: Double?) -> JSON {
            guard let time else { return .null }
            return .int(Int64(((time - origin) * 1000).rounded()))
        }
        func text(_ value: String?) -> JSON { value.map(JSON.string) ?? .null }
        let nodes: [JSON] = rows.map { row in
            let attempts: [JSON] = row.attempts.map { a in
                .object(
                    JSONObject([
                        ("attempt", .int(Int64(a.attempt))), ("phase", .string(a.condition ? "condition" : "run")),
                        ("queued", ms(a.queued)), ("started", ms(a.started)), ("finished", ms(a.finished)),
                        ("outcome", text(a.outcome?.rawValue)),
                    ]))
            }
            let waits: [JSON] = row.waits.map { w in
                .object(
                    JSONObject([
                        ("reason", .string(w.reason)), ("attempt", .int(Int64(w.attempt))), ("from", ms(w.from)), ("to", ms(w.to)),
                        ("due", ms(w.due)),
                    ]))
            }
            return .object(
                JSONObject([
                    ("key", .string(row.key)), ("status", .string(row.status)), ("first", ms(row.first)),
                    ("outcome", text(row.outcome?.rawValue)), ("ended", ms(row.ended)), ("attempts", .array(attempts)),
                    ("waits", .array(waits)),
                ]))
        }
        return .object(
            JSONObject([
                ("start_ms", .int(Int64((start * 1000).rounded()))), ("duration_ms", .int(Int64((duration * 1000).rounded()))),
                ("nodes", .array(nodes)),
            ]))
    }

    /// `json` after the run's id and status (`run`, `status`): what `baton show --timeline --json`
    /// prints and the dashboard's `/api/runs/ID/timeline.json` answers.
    public func document(run id: String, status: RunStatus) -> JSON {
        .object(JSONObject([("run", .string(id)), ("status", .string(status.rawValue))] + (json.objectValue?.members ?? [])))
    }
}
