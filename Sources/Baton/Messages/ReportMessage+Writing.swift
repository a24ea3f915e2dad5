import Foundation

/// Writing a report without Foundation's encoder: a worker writes two per node (started, result).
/// The members are those `encode(to:)` writes, sorted by name, with a result's output last, spliced
/// in as the procedure encoded it. Progress and log reports go through `Codable`.
extension ReportMessage {
    /// The body of a `started` or `result` report; nil for the other kinds.
    func written() -> [UInt8]? {
        guard kind == .started || kind == .result else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(200 + (encodedOutput?.bytes.count ?? 0))
        var first = true
        func member(_ name: StaticString) {
            out.append(first ? UInt8(ascii: "{") : UInt8(ascii: ","))
            first = false
            out.append(UInt8(ascii: "\""))
            name.withUTF8Buffer { out.append(contentsOf: $0) }
            out.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
        }
        func seconds(_ name: StaticString, _ date: Date?) {
            guard let date else { return }
            member(name)
            JSON.double(date.timeIntervalSince1970).write(into: &out, sortedKeys: false)
        }
        if kind == .started { seconds("at", startedAt) }
        member("attempt")
        out.append(contentsOf: String(attempt).utf8)
        if kind == .result, let failure {
            member("error")
            JSON.writeString(failure.message, into: &out)
        }
        if kind == .result { seconds("finished_at", finishedAt) }
        member("node")
        JSON.writeString(key, into: &out)
        if kind == .result, let failure {
            member("permanent")
            out.append(contentsOf: (failure.permanent ? "true" : "false").utf8)
        }
        if kind == .result, phase != .run {
            member("phase")
            JSON.writeString(phase.rawValue, into: &out)
        }
        member("run")
        JSON.writeString(runID, into: &out)
        if kind == .result {
            seconds("started_at", startedAt)
            member("status")
            JSON.writeString(failure != nil ? "failed" : spawned ? "spawned" : "succeeded", into: &out)
        }
        member("type")
        JSON.writeString(kind.rawValue, into: &out)
        member("v")
        out.append(contentsOf: String(WireFormat.version).utf8)
        if let worker {
            member("worker")
            JSON.writeString(worker, into: &out)
        }
        if kind == .result, failure == nil {
            if spawned { member("spawn") } else { member("output") }
            if let encodedOutput { out.append(contentsOf: encodedOutput.bytes) } else { (output ?? .null).write(into: &out, sortedKeys: false) }
        }
        out.append(UInt8(ascii: "}"))
        return out
    }
}
