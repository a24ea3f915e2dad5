import Foundation

/// What a worker process says about itself every few seconds.
public struct WorkerHeartbeat: Codable, Sendable, Equatable {
    public let id: String
    public let host: String
    public let pid: Int
    public let pools: [String]
    public let procedures: [String]
    public let slots: Int
    public let startedAt: Date
    /// Slots busy right now.
    public let busy: Int?

    public init(id: String, host: String, pid: Int, pools: [String], procedures: [String], slots: Int, startedAt: Date, busy: Int? = nil) {
        self.id = id
        self.host = host
        self.pid = pid
        self.pools = pools
        self.procedures = procedures
        self.slots = slots
        self.startedAt = startedAt
        self.busy = busy
    }
}

extension WorkerHeartbeat {
    public func encoded() -> [UInt8] {
        JSON(["id": .string(id), "host": .string(host), "pid": .int(Int64(pid)), "pools": .array(pools.map(JSON.string)),
              "procedures": .array(procedures.map(JSON.string)), "slots": .int(Int64(slots)),
              "started_at": .double(startedAt.timeIntervalSince1970), "busy": busy.map { .int(Int64($0)) } ?? .null]).serializedBytes()
    }

    public init(decoding bytes: [UInt8]) throws {
        let json: JSON
        do { json = try JSONParser.parse(bytes) } catch { throw MessageError("heartbeat is not JSON: \(error)") }
        guard let id = json["id"]?.stringValue, let host = json["host"]?.stringValue, let pid = json["pid"]?.intValue,
              let slots = json["slots"]?.intValue, let started = json["started_at"]?.numberValue else {
            throw MessageError("heartbeat lacks id, host, pid, slots or started_at")
        }
        self.init(id: id, host: host, pid: pid, pools: json["pools"]?.arrayValue?.compactMap(\.stringValue) ?? [],
                  procedures: json["procedures"]?.arrayValue?.compactMap(\.stringValue) ?? [], slots: slots,
                  startedAt: Date(timeIntervalSince1970: started), busy: json["busy"]?.intValue)
    }
}
