/// Writing and reading a task without Foundation's coders: the coordinator writes one and a worker
/// reads one per node, and through `JSONEncoder`/`JSONDecoder` that cost several microseconds each.
/// The bytes are the document `Codable` writes (members sorted by name); a task of any other shape
/// is left to the `Codable` path, so what is refused and why stays the same.
extension TaskDispatch {
    /// The message body, members sorted by name.
    func written() -> [UInt8] {
        var w = WireWriter(capacity: 160)
        w.int("attempt", attempt)
        w.json("input", input)
        w.string("node", key)
        if phase != .run { w.string("phase", phase.rawValue) }
        w.string("pool", pool)
        if let previousOutput { w.json("previous_output", previousOutput) }
        w.int("priority", priority)
        w.string("procedure", procedure)
        w.string("run", runID)
        if let timeout { w.json("timeout", .double(timeout)) }
        w.int("v", WireFormat.version)
        return w.finished()
    }

    /// The task `bytes` hold, or nil when only the `Codable` path can say (or refuse).
    static func read(_ bytes: [UInt8]) -> TaskDispatch? {
        guard case let .object(o)? = try? JSONParser.parse(bytes), case .int(Int64(WireFormat.version))? = o["v"],
            case let .string(run)? = o["run"], case let .string(node)? = o["node"], case let .int(attempt)? = o["attempt"],
            let attempt = Int(exactly: attempt), case let .string(procedure)? = o["procedure"], case let .string(pool)? = o["pool"],
            case let .int(priority)? = o["priority"], let priority = Int(exactly: priority)
        else { return nil }
        guard let phaseText = WireField.string(o["phase"]), let timeout = WireField.number(o["timeout"]) else { return nil }
        var phase = TaskPhase.run
        if let phaseText {
            guard let p = TaskPhase(rawValue: phaseText) else { return nil }
            phase = p
        }
        let previous = o["previous_output"]
        return TaskDispatch(
            runID: run, key: node, attempt: attempt, procedure: procedure, input: o["input"] ?? .null, pool: pool,
            priority: priority, phase: phase, timeout: timeout, previousOutput: previous == .null ? nil : previous)
    }
}
