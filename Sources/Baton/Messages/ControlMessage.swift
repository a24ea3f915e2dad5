/// Sent by the coordinator to every worker: stop these attempts (cancelled or timed out).
public struct ControlMessage: Sendable, Equatable {
    public let runID: String
    public let attempts: [TaskRef]

    public init(runID: String, attempts: [TaskRef]) {
        self.runID = runID
        self.attempts = attempts
    }

    public func encoded() -> [UInt8] {
        JSON(["type": "cancel", "run": .string(runID),
              "attempts": .array(attempts.map { ["node": .string($0.key), "attempt": .int(Int64($0.attempt))] })]).serializedBytes()
    }

    public init(decoding bytes: [UInt8]) throws {
        let json: JSON
        do { json = try JSONParser.parse(bytes) } catch { throw MessageError("control message is not JSON: \(error)") }
        guard json["type"] == "cancel", let run = json["run"]?.stringValue, let list = json["attempts"]?.arrayValue else {
            throw MessageError("control message lacks type cancel, run or attempts")
        }
        self.init(runID: run, attempts: try list.map {
            guard let node = $0["node"]?.stringValue, let attempt = $0["attempt"]?.intValue else { throw MessageError("control attempt lacks node or attempt") }
            return TaskRef(key: node, attempt: attempt)
        })
    }
}
