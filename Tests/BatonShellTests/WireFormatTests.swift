import Baton
import Foundation
import Testing

@Suite("Wire formats: versioned Codable messages")
struct WireFormatTests {
    @Test func aTaskRoundTrips() throws {
        var task = TaskDispatch(
            runID: "r", key: "g/n", attempt: 3, procedure: "demo.x", input: ["a": [1, 2.5, "é", nil], "b": true],
            pool: "gpu", priority: 7, phase: .condition, timeout: 1.5, previousOutput: ["n": 9_007_199_254_740_993])
        #expect(try TaskDispatch(decoding: task.encoded()) == task)
        task = TaskDispatch(runID: "r", key: "n", attempt: 1, procedure: "p", input: .null, pool: "default", priority: 0)
        #expect(try TaskDispatch(decoding: task.encoded()) == task)
        #expect(String(decoding: task.encoded(), as: UTF8.self).contains("\"v\":1"))
    }

    @Test func reportsRoundTripAndAResultsOutputIsSplicedAsEncoded() throws {
        let at = Date(timeIntervalSince1970: 1_700_000_000.25)
        let output = EncodedJSON(Array(#"{"z":1,"a":[true,null]}"#.utf8))
        let result = AttemptResult<EncodedJSON>(
            key: "n", attempt: 2, phase: .condition, outcome: .succeeded(output), worker: "w",
            startedAt: at, finishedAt: at.addingTimeInterval(1))
        let body = ReportMessage.result(runID: "r", result).encoded()
        #expect(String(decoding: body, as: UTF8.self).contains(#","output":{"z":1,"a":[true,null]},"#), "the bytes go out as encoded")
        guard case let .result(decoded) = try ReportMessage(decoding: body).event else { Issue.record("not a result"); return }
        #expect(decoded.key == "n" && decoded.attempt == 2 && decoded.phase == .condition && decoded.worker == "w")
        #expect(decoded.outcome == .succeeded(["z": 1, "a": [true, nil]]))
        #expect(decoded.startedAt == at)

        let failed = AttemptResult<EncodedJSON>(key: "n", attempt: 1, outcome: .failed(message: "boom", permanent: true))
        guard case let .result(f) = try ReportMessage(decoding: ReportMessage.result(runID: "r", failed).encoded()).event else { return }
        #expect(f.outcome == .failed(message: "boom", permanent: true))
        #expect(f.errorType == nil)
        var thrown = AttemptResult<EncodedJSON>(key: "n", attempt: 1, outcome: .failed(message: "p threw QuotaError: over", permanent: false))
        thrown.errorType = "QuotaError"
        let thrownBody = ReportMessage.result(runID: "r", thrown).encoded()
        #expect(String(decoding: thrownBody, as: UTF8.self).contains(#""error_type":"QuotaError""#))
        guard case let .result(t) = try ReportMessage(decoding: thrownBody).event else { return }
        #expect(t.errorType == "QuotaError")
        // A worker's error type is a name to group by: no NUL (a text column refuses it), at most 200 characters.
        for (sent, read) in [("Bad\u{0}Type", "BadType"), (String(repeating: "T", count: 500), String(repeating: "T", count: 200)), ("\u{0}", nil)] {
            thrown.errorType = sent
            guard case let .result(r) = try ReportMessage(decoding: ReportMessage.result(runID: "r", thrown).encoded()).event else { return }
            #expect(r.errorType == read)
        }

        guard
            case let .started(key, attempt, worker, when) = try ReportMessage(
                decoding: ReportMessage.started(runID: "r", key: "k", attempt: 4, worker: "w", at: at).encoded()
            ).event
        else { return }
        #expect(key == "k" && attempt == 4 && worker == "w" && when == at)
        guard
            case let .progress(_, _, fraction, message) = try ReportMessage(
                decoding: ReportMessage.progress(runID: "r", key: "k", attempt: 1, fraction: 0.5, message: "half").encoded()
            ).event
        else { return }
        #expect(fraction == 0.5 && message == "half")
        guard
            case let .log(_, _, line) = try ReportMessage(
                decoding: ReportMessage.log(runID: "r", key: "k", attempt: 1, message: "hi").encoded()
            ).event
        else { return }
        #expect(line == "hi")
    }

    @Test func controlAndHeartbeatRoundTrip() throws {
        let control = ControlMessage(runID: "r", attempts: [TaskRef(key: "a", attempt: 1), TaskRef(key: "b/c", attempt: 9)])
        #expect(try ControlMessage(decoding: control.encoded()) == control)
        let beat = WorkerHeartbeat(
            id: "w-1", host: "h", pid: 42, pools: ["default", "gpu"], procedures: ["baton.echo"], slots: 4,
            startedAt: Date(timeIntervalSince1970: 1_700_000_000), busy: 2, interval: 0.5, stopping: true)
        #expect(try WorkerHeartbeat(decoding: beat.encoded()) == beat)
        #expect(!String(decoding: beat.encoded(), as: UTF8.self).contains("schemas"))
    }

    @Test func aHeartbeatCarriesSchemasThatOlderReadersIgnore() throws {
        let schemas = ProcedureRegistry.builtIn.schemas
        let beat = WorkerHeartbeat(
            id: "w-1", host: "h", pid: 42, pools: ["default"], procedures: ProcedureRegistry.builtIn.names, slots: 4,
            startedAt: Date(timeIntervalSince1970: 1_700_000_000), schemas: schemas)
        let bytes = beat.encoded()
        #expect(try WorkerHeartbeat(decoding: bytes) == beat)
        #expect(try WorkerHeartbeat(decoding: bytes).schemas?["baton.add"]?.input.brief == "{values: array of number}")
        // A reader that knows only the fields of before (as version 1 always had) still reads it.
        struct OldHeartbeat: Decodable { let v: Int; let id: String; let procedures: [String]; let busy: Int }
        #expect(try JSONDecoder().decode(OldHeartbeat.self, from: Data(bytes)).id == "w-1")
        // Schemas this build cannot read lose only themselves, not the heartbeat.
        var json = try JSONParser.parse(bytes)
        guard case var .object(o) = json else { return }
        o["schemas"] = ["baton.add": "not a schema"]
        json = .object(o)
        let read = try WorkerHeartbeat(decoding: json.serializedBytes())
        #expect(read.schemas == nil && read.id == "w-1")
        // And a kind of schema it does not know reads as `any`.
        o["schemas"] = ["p": ["input": ["type": "tensor"], "output": ["type": "integer"]]]
        #expect(
            try WorkerHeartbeat(decoding: JSON.object(o).serializedBytes()).schemas
                == ["p": ProcedureSchema(input: .any, output: .integer)])
    }

    @Test(arguments: [
        #"{"v":2,"type":"log","run":"r","node":"n","attempt":1,"message":"x"}"#,
        #"{"type":"log","run":"r","node":"n","attempt":1,"message":"x"}"#,
        #"{"v":1,"type":"result","run":"r","node":"n","attempt":1,"status":"maybe"}"#,
        #"{"v":1,"type":"gossip","run":"r","node":"n","attempt":1}"#,
        #"{"v":1,"type":"progress","run":"r","node":"n","attempt":"one","fraction":0.5}"#,
        "not json",
    ])
    func unreadableReportsAreRefusedWithAClearError(body: String) {
        #expect(throws: MessageError.self) { try ReportMessage(decoding: Array(body.utf8)) }
    }

    @Test func anUnknownVersionSaysSo() {
        do {
            _ = try ControlMessage(decoding: Array(#"{"v":7,"type":"cancel","run":"r","attempts":[]}"#.utf8))
            Issue.record("version 7 was read")
        } catch {
            #expect("\(error)" == "control message has version 7; this build of Baton reads version 1 only")
        }
    }

    @Test func aGraphPlanRoundTrips() throws {
        let graph = try GraphDecoder().decode(
            Array(
                #"""
                {"name": "p", "defaults": {"retry": {"attempts": 3, "wait": {"exponential": {"initial": "1s", "max": "1m"}}}},
                 "nodes": {"a": {"procedure": "baton.echo", "input": {"x": [1, {"$from": "b", "select": "/y/0"}]}, "timeout": "5s",
                                 "when": {"$from": "b"}, "priority": 3, "pool": "gpu", "on_failure": "ignore"},
                           "b": {"procedure": "baton.add", "input": {"values": [1]},
                                 "condition": {"procedure": "baton.echo", "input": true, "negate": true},
                                 "repeat": {"until": {"select": "", "equals": 1}, "wait": "immediate", "max": 3}}}}
                """#.utf8))
        let plan = try JSONDecoder().decode(Graph.self, from: Data(WireFormat.encode(graph)))
        #expect(plan.name == graph.name && plan.order == graph.order)
        for key in graph.order {
            let a = graph.nodes[key]!, b = plan.nodes[key]!
            #expect(a.input == b.input && a.policies == b.policies && a.dependencies == b.dependencies)
            #expect(a.pool == b.pool && a.priority == b.priority && a.procedure == b.procedure && a.after == b.after)
        }
    }
}
