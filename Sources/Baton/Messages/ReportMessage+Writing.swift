import Foundation

/// Writing a report without Foundation's encoder: a worker writes two per node (started, result).
/// The members are those `encode(to:)` writes, sorted by name, with a result's output last, spliced
/// in as the procedure encoded it. Progress and log reports go through `Codable`.
extension ReportMessage {
    /// The body of a `started` or `result` report; nil for the other kinds.
    func written() -> [UInt8]? {
        guard kind == .started || kind == .result else { return nil }
        var w = WireWriter(capacity: 200 + (encodedOutput?.bytes.count ?? 0))
        func seconds(_ name: StaticString, _ date: Date?) {
            if let date { w.json(name, .double(date.timeIntervalSince1970)) }
        }
        if kind == .started { seconds("at", startedAt) }
        w.int("attempt", attempt)
        if kind == .result, let failure { w.string("error", failure.message) }
        if kind == .result { seconds("finished_at", finishedAt) }
        w.string("node", key)
        if kind == .result, let failure { w.json("permanent", .bool(failure.permanent)) }
        if kind == .result, phase != .run { w.string("phase", phase.rawValue) }
        w.string("run", runID)
        if kind == .result {
            seconds("started_at", startedAt)
            w.string("status", failure != nil ? "failed" : spawned ? "spawned" : "succeeded")
        }
        w.string("type", kind.rawValue)
        w.int("v", WireFormat.version)
        if let worker { w.string("worker", worker) }
        if kind == .result, failure == nil {
            if let encodedOutput {
                if spawned { w.encoded("spawn", encodedOutput.bytes) } else { w.encoded("output", encodedOutput.bytes) }
            } else {
                if spawned { w.json("spawn", output ?? .null) } else { w.json("output", output ?? .null) }
            }
        }
        return w.finished()
    }
}
