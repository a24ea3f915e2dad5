/// Writing and reading a task without Foundation's coders: the coordinator writes one and a worker
/// reads one per node, and through `JSONEncoder`/`JSONDecoder` that cost several microseconds each.
/// The bytes are the document `Codable` writes (members sorted by name); a task of any other shape
/// is left to the `Codable` path, so what is refused and why stays the same.
extension TaskDispatch {
    /// The message body, members sorted by name.
    func written() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(160)
        func member(_ name: StaticString, _ first: Bool = false) {
            out.append(first ? UInt8(ascii: "{") : UInt8(ascii: ","))
            out.append(UInt8(ascii: "\""))
            name.withUTF8Buffer { out.append(contentsOf: $0) }
            out.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
        }
        member("attempt", true)
        out.append(contentsOf: String(attempt).utf8)
        member("input")
        input.write(into: &out, sortedKeys: false)
        member("node")
        JSON.writeString(key, into: &out)
        if phase != .run {
            member("phase")
            JSON.writeString(phase.rawValue, into: &out)
        }
        member("pool")
        JSON.writeString(pool, into: &out)
        if let previousOutput {
            member("previous_output")
            previousOutput.write(into: &out, sortedKeys: false)
        }
        member("priority")
        out.append(contentsOf: String(priority).utf8)
        member("procedure")
        JSON.writeString(procedure, into: &out)
        member("run")
        JSON.writeString(runID, into: &out)
        if let timeout {
            member("timeout")
            JSON.double(timeout).write(into: &out, sortedKeys: false)
        }
        member("v")
        out.append(contentsOf: String(WireFormat.version).utf8)
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// The task `bytes` hold, or nil when only the `Codable` path can say (or refuse).
    static func read(_ bytes: [UInt8]) -> TaskDispatch? {
        guard case let .object(o)? = try? JSONParser.parse(bytes), case .int(Int64(WireFormat.version))? = o["v"],
            case let .string(run)? = o["run"], case let .string(node)? = o["node"], case let .int(attempt)? = o["attempt"],
            let attempt = Int(exactly: attempt), case let .string(procedure)? = o["procedure"], case let .string(pool)? = o["pool"],
            case let .int(priority)? = o["priority"], let priority = Int(exactly: priority)
        else { return nil }
        var phase = TaskPhase.run
        switch o["phase"] {
        case nil, .null?: break
        case let .string(text)?:
            guard let p = TaskPhase(rawValue: text) else { return nil }
            phase = p
        default: return nil
        }
        var timeout: Double?
        switch o["timeout"] {
        case nil, .null?: break
        case let .int(i)?: timeout = Double(i)
        case let .double(d)?: timeout = d
        default: return nil
        }
        let previous = o["previous_output"]
        return TaskDispatch(
            runID: run, key: node, attempt: attempt, procedure: procedure, input: o["input"] ?? .null, pool: pool,
            priority: priority, phase: phase, timeout: timeout, previousOutput: previous == .null ? nil : previous)
    }
}
