import Foundation

/// What a worker sends back on the results queue: an attempt started, or ended.
public enum ReportMessage: Sendable {
    case started(runID: String, key: String, attempt: Int, worker: String, at: Date)
    case finished(runID: String, result: NodeResult)

    public var runID: String {
        switch self {
        case let .started(runID, _, _, _, _): return runID
        case let .finished(runID, _): return runID
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
            self = .finished(runID: run, result: NodeResult(key: node, attempt: attempt, outcome: outcome, worker: json["worker"]?.stringValue,
                                                            startedAt: date("started_at"), finishedAt: date("finished_at")))
        default:
            throw MessageError("unknown report type '\(type)'")
        }
    }
}
