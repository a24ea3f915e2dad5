import Foundation

/// Reading a report without Foundation's decoder: the coordinator reads one per node, and through
/// `JSONDecoder` that was about a fifth of its time on a fan-in. A report of any other shape (a
/// field missing or of another type, a number where the decoder would convert, a duplicate member)
/// is left to the `Codable` path, so what is refused and the message saying why stay the same.
extension ReportMessage {
    /// The report `bytes` hold, or nil when only the `Codable` path can say (or refuse).
    static func read(_ bytes: [UInt8]) -> ReportMessage? {
        guard case let .object(o)? = try? JSONParser.parse(bytes), case .int(Int64(WireFormat.version))? = o["v"],
            case let .string(type)? = o["type"], let kind = Kind(rawValue: type), case let .string(run)? = o["run"],
            case let .string(node)? = o["node"], case let .int(attempt)? = o["attempt"], let attempt = Int(exactly: attempt)
        else { return nil }
        var m = ReportMessage(kind: kind, runID: run, key: node, attempt: attempt)
        guard let worker = WireField.string(o["worker"]) else { return nil }
        m.worker = worker
        switch kind {
        case .started:
            guard let at = WireField.number(o["at"]) else { return nil }
            m.startedAt = at.map(Date.init(timeIntervalSince1970:))
        case .result:
            guard let phase = WireField.string(o["phase"]), let startedAt = WireField.number(o["started_at"]),
                let finishedAt = WireField.number(o["finished_at"]), case let .string(status)? = o["status"]
            else { return nil }
            if let text = phase {
                guard let p = TaskPhase(rawValue: text) else { return nil }
                m.phase = p
            }
            m.startedAt = startedAt.map(Date.init(timeIntervalSince1970:))
            m.finishedAt = finishedAt.map(Date.init(timeIntervalSince1970:))
            switch status {
            case "succeeded": m.output = o["output"] ?? .null
            case "spawned":
                guard let spawn = o["spawn"], spawn != .null else { return nil }
                m.output = spawn
                m.spawned = true
            case "failed":
                guard case let .string(error)? = o["error"] else { return nil }
                switch o["permanent"] {
                case nil, .null?: m.failure = (error, false)
                case let .bool(permanent)?: m.failure = (error, permanent)
                default: return nil
                }
            default: return nil
            }
        case .progress, .log:
            return nil  // rare: the `Codable` path reads them
        }
        return m
    }
}
