import Foundation

/// A malformed message on one of Baton's queues.
public struct MessageError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The body of a task message: one attempt of one node, input already resolved.
extension TaskDispatch {
    public func encoded() -> [UInt8] {
        var o: [(key: String, value: JSON)] = [
            ("run", .string(runID)), ("node", .string(key)), ("attempt", .int(Int64(attempt))), ("procedure", .string(procedure)),
            ("input", input), ("pool", .string(pool)), ("priority", .int(Int64(priority))),
        ]
        if phase != .run { o.append(("phase", .string(phase.rawValue))) }
        if let timeout { o.append(("timeout", .double(timeout))) }
        if let previousOutput { o.append(("previous_output", previousOutput)) }
        return JSON.object(JSONObject(o)).serializedBytes()
    }

    public init(decoding bytes: [UInt8]) throws {
        let json: JSON
        do { json = try JSONParser.parse(bytes, maxDepth: 1024) } catch { throw MessageError("task message is not JSON: \(error)") }
        guard let run = json["run"]?.stringValue, let node = json["node"]?.stringValue,
              let attempt = json["attempt"]?.intValue, let procedure = json["procedure"]?.stringValue else {
            throw MessageError("task message lacks run, node, attempt or procedure")
        }
        guard let phase = TaskPhase(rawValue: json["phase"]?.stringValue ?? "run") else { throw MessageError("task message has an unknown phase") }
        self.init(runID: run, key: node, attempt: attempt, procedure: procedure, input: json["input"] ?? .null,
                  pool: json["pool"]?.stringValue ?? "default", priority: json["priority"]?.intValue ?? 0, phase: phase,
                  timeout: json["timeout"]?.numberValue, previousOutput: json["previous_output"])
    }
}
