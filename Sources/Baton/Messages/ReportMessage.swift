import Foundation

/// What a worker sends back on the results queue: an attempt started, or ended.
public enum ReportMessage: Sendable {
    case started(runID: String, key: String, attempt: Int, worker: String, at: Date)
    case finished(runID: String, result: NodeResult)
    case progress(runID: String, key: String, attempt: Int, fraction: Double, message: String?)
    case log(runID: String, key: String, attempt: Int, message: String)

    public var runID: String {
        switch self {
        case let .started(runID, _, _, _, _): return runID
        case let .finished(runID, _): return runID
        case let .progress(runID, _, _, _, _): return runID
        case let .log(runID, _, _, _): return runID
        }
    }

    public func encoded() -> [UInt8] {
        switch self {
        case let .started(runID, key, attempt, worker, at):
            return JSON(["type": "started", "run": .string(runID), "node": .string(key), "attempt": .int(Int64(attempt)),
                         "worker": .string(worker), "at": .double(at.timeIntervalSince1970)]).serializedBytes()
        case let .finished(runID, r):
            var members: [(key: String, value: JSON)] = [
                ("type", "result"), ("run", .string(runID)), ("node", .string(r.key)), ("attempt", .int(Int64(r.attempt))),
            ]
            if r.phase != .run { members.append(("phase", .string(r.phase.rawValue))) }
            if let worker = r.worker { members.append(("worker", .string(worker))) }
            if let s = r.startedAt { members.append(("started_at", .double(s.timeIntervalSince1970))) }
            if let f = r.finishedAt { members.append(("finished_at", .double(f.timeIntervalSince1970))) }
            switch r.outcome {
            case let .succeeded(output):
                members.append(("status", "succeeded"))
                members.append(("output", output))
            case let .failed(message, permanent):
                members.append(("status", "failed"))
                members.append(("error", .string(message)))
                members.append(("permanent", .bool(permanent)))
            }
            return JSON.object(JSONObject(members)).serializedBytes()
        case let .progress(runID, key, attempt, fraction, message):
            var members: [(key: String, value: JSON)] = [("type", "progress"), ("run", .string(runID)), ("node", .string(key)),
                                                         ("attempt", .int(Int64(attempt))), ("fraction", .double(fraction))]
            if let message { members.append(("message", .string(message))) }
            return JSON.object(JSONObject(members)).serializedBytes()
        case let .log(runID, key, attempt, message):
            return JSON(["type": "log", "run": .string(runID), "node": .string(key), "attempt": .int(Int64(attempt)),
                         "message": .string(message)]).serializedBytes()
        }
    }

    public init(decoding bytes: [UInt8]) throws {
        let json: JSON
        do { json = try JSONParser.parse(bytes, maxDepth: 1024) } catch { throw MessageError("report is not JSON: \(error)") }
        guard let type = json["type"]?.stringValue, let run = json["run"]?.stringValue,
              let node = json["node"]?.stringValue, let attempt = json["attempt"]?.intValue else {
            throw MessageError("report lacks type, run, node or attempt")
        }
        func date(_ key: String) -> Date? { json[key]?.numberValue.map { Date(timeIntervalSince1970: $0) } }
        switch type {
        case "started":
            self = .started(runID: run, key: node, attempt: attempt, worker: json["worker"]?.stringValue ?? "?", at: date("at") ?? Date())
        case "result":
            let outcome: NodeResult.Outcome
            switch json["status"]?.stringValue {
            case "succeeded"?: outcome = .succeeded(json["output"] ?? .null)
            case "failed"?: outcome = .failed(message: json["error"]?.stringValue ?? "unknown error", permanent: json["permanent"]?.boolValue ?? false)
            default: throw MessageError("result has no valid status")
            }
            guard let phase = TaskPhase(rawValue: json["phase"]?.stringValue ?? "run") else { throw MessageError("result has an unknown phase") }
            self = .finished(runID: run, result: NodeResult(key: node, attempt: attempt, phase: phase, outcome: outcome,
                                                            worker: json["worker"]?.stringValue,
                                                            startedAt: date("started_at"), finishedAt: date("finished_at")))
        case "progress":
            guard let fraction = json["fraction"]?.numberValue, fraction.isFinite else { throw MessageError("progress lacks a fraction") }
            self = .progress(runID: run, key: node, attempt: attempt, fraction: min(max(fraction, 0), 1), message: json["message"]?.stringValue)
        case "log":
            guard let message = json["message"]?.stringValue else { throw MessageError("log lacks a message") }
            self = .log(runID: run, key: node, attempt: attempt, message: message)
        default:
            throw MessageError("unknown report type '\(type)'")
        }
    }
}
