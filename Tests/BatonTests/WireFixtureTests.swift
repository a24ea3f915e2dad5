import Foundation
import Testing

@testable import Baton

/// Messages as the build before the one-description codecs wrote them (its direct writer kept nested
/// members in document order, wrote `30.0` and `\u0008`, and put a result's output last), byte for
/// byte: this build must still read them, since workers and coordinators are upgraded one at a time.
/// And what this build writes for the same messages, which the builds before it read.
@Suite("wire formats: messages of the build before")
struct WireFixtureTests {
    static let at = Date(timeIntervalSince1970: 1_795_000_000.5)

    static let task = TaskDispatch(
        runID: "r-1", key: "g/n", attempt: 2, procedure: "demo.x", input: ["z": 1, "a": [2.0, "é\u{8}"], "m": ["y": nil, "b": true]],
        pool: "gpu", priority: 7, phase: .condition, timeout: 30, previousOutput: ["q": 1.5, "p": 0])

    @Test func tasks() throws {
        let old =
            #"{"attempt":2,"input":{"z":1,"a":[2.0,"é\u0008"],"m":{"y":null,"b":true}},"node":"g/n","phase":"condition","pool":"gpu","#
            + #""previous_output":{"q":1.5,"p":0},"priority":7,"procedure":"demo.x","run":"r-1","timeout":30.0,"v":1}"#
        #expect(try TaskDispatch(decoding: Array(old.utf8)) == Self.task)
        #expect(TaskDispatch.read(Array(old.utf8)) == Self.task, "read directly")
        let now =
            #"{"attempt":2,"input":{"a":[2,"é\b"],"m":{"b":true,"y":null},"z":1},"node":"g/n","phase":"condition","pool":"gpu","#
            + #""previous_output":{"p":0,"q":1.5},"priority":7,"procedure":"demo.x","run":"r-1","timeout":30,"v":1}"#
        #expect(String(decoding: Self.task.encoded(), as: UTF8.self) == now)

        let plain = TaskDispatch(runID: "r-1", key: "n", attempt: 1, procedure: "baton.echo", input: .null, pool: "default", priority: 0)
        let plainText = #"{"attempt":1,"input":null,"node":"n","pool":"default","priority":0,"procedure":"baton.echo","run":"r-1","v":1}"#
        #expect(try TaskDispatch(decoding: Array(plainText.utf8)) == plain)
        #expect(String(decoding: plain.encoded(), as: UTF8.self) == plainText, "unchanged")
    }

    @Test func reports() throws {
        let started = #"{"at":1795000000.5,"attempt":1,"node":"n","run":"r-1","type":"started","v":1,"worker":"w-1"}"#
        #expect(try event(started) == "\(SchedulerEvent.started(key: "n", attempt: 1, worker: "w-1", at: Self.at))")
        #expect(
            String(decoding: ReportMessage.started(runID: "r-1", key: "n", attempt: 1, worker: "w-1", at: Self.at).encoded(), as: UTF8.self)
                == started)

        let succeeded =
            #"{"attempt":1,"finished_at":1795000002.5,"node":"n","run":"r-1","started_at":1795000000.5,"status":"succeeded","type":"result","#
            + #""v":1,"worker":"w-1","output":{"z":1,"a":2.0}}"#
        let result = try #require(try ReportMessage(decoding: Array(succeeded.utf8)).event.result)
        #expect(result.outcome == .succeeded(["a": 2, "z": 1]) && result.worker == "w-1" && result.attempt == 1)
        #expect(result.startedAt == Self.at && result.finishedAt == Self.at.addingTimeInterval(2))
        let sent = ReportMessage.result(
            runID: "r-1",
            AttemptResult(
                key: "n", attempt: 1, outcome: .succeeded(EncodedJSON(["z": 1, "a": 2.0])), worker: "w-1", startedAt: Self.at,
                finishedAt: Self.at.addingTimeInterval(2)))
        #expect(
            String(decoding: sent.encoded(), as: UTF8.self)
                == #"{"attempt":1,"finished_at":1795000002.5,"node":"n","output":{"z":1,"a":2.0},"run":"r-1","started_at":1795000000.5,"#
                + #""status":"succeeded","type":"result","v":1,"worker":"w-1"}"#,
            "the output as the procedure encoded it, now in its place by name")

        let failed =
            #"{"attempt":3,"error":"boom \"x\"","node":"n","permanent":true,"phase":"condition","run":"r-1","status":"failed","type":"result","v":1}"#
        let failure = try #require(try ReportMessage(decoding: Array(failed.utf8)).event.result)
        #expect(failure.outcome == .failed(message: "boom \"x\"", permanent: true) && failure.phase == .condition && failure.worker == nil)
        let failedNow = ReportMessage.result(
            runID: "r-1",
            AttemptResult<EncodedJSON>(key: "n", attempt: 3, phase: .condition, outcome: .failed(message: "boom \"x\"", permanent: true)))
        #expect(String(decoding: failedNow.encoded(), as: UTF8.self) == failed, "unchanged")

        let spawned =
            #"{"attempt":1,"finished_at":1795000000.5,"node":"s","run":"r-1","started_at":1795000000.5,"status":"spawned","type":"result","#
            + #""v":1,"worker":"w-1","spawn":{"nodes":{"a":{"procedure":"baton.echo"}}}}"#
        let spawn = try #require(try ReportMessage(decoding: Array(spawned.utf8)).event.result)
        #expect(spawn.outcome == .spawned(["nodes": ["a": ["procedure": "baton.echo"]]]))

        let progress = #"{"attempt":1,"fraction":0.5,"message":"half","node":"n","run":"r-1","type":"progress","v":1}"#
        #expect(try event(progress) == "\(SchedulerEvent.progress(key: "n", attempt: 1, fraction: 0.5, message: "half"))")
        #expect(
            String(decoding: ReportMessage.progress(runID: "r-1", key: "n", attempt: 1, fraction: 0.5, message: "half").encoded(), as: UTF8.self)
                == progress)
        let log = #"{"attempt":1,"message":"a line","node":"n","run":"r-1","type":"log","v":1}"#
        #expect(try event(log) == "\(SchedulerEvent.log(key: "n", attempt: 1, message: "a line"))")
        #expect(String(decoding: ReportMessage.log(runID: "r-1", key: "n", attempt: 1, message: "a line").encoded(), as: UTF8.self) == log)
    }

    @Test func controlAndHeartbeat() throws {
        let control = ControlMessage(runID: "r-1", attempts: [TaskRef(key: "a", attempt: 1), TaskRef(key: "b/c", attempt: 9)])
        let controlText = #"{"attempts":[{"attempt":1,"node":"a"},{"attempt":9,"node":"b/c"}],"run":"r-1","type":"cancel","v":1}"#
        #expect(try ControlMessage(decoding: Array(controlText.utf8)) == control)
        #expect(String(decoding: control.encoded(), as: UTF8.self) == controlText, "unchanged")

        let beat = WorkerHeartbeat(
            id: "w-1", host: "h", pid: 42, pools: ["default", "gpu"], procedures: ["baton.add", "baton.echo"], slots: 4,
            startedAt: Date(timeIntervalSince1970: 1_700_000_000), busy: 2, interval: 5, stopping: true,
            schemas: ["baton.add": ProcedureSchema(input: .any, output: .integer)])
        let beatText =
            #"{"busy":2,"host":"h","id":"w-1","interval":5,"pid":42,"pools":["default","gpu"],"procedures":["baton.add","baton.echo"],"#
            + #""schemas":{"baton.add":{"input":{"type":"any"},"output":{"type":"integer"}}},"slots":4,"started_at":1700000000,"#
            + #""stopping":true,"v":1}"#
        #expect(try WorkerHeartbeat(decoding: Array(beatText.utf8)) == beat)
        #expect(String(decoding: beat.encoded(), as: UTF8.self) == beatText, "unchanged")

        let holding = WorkerHeartbeat(
            id: "w-1", host: "h", pid: 42, pools: ["default"], procedures: ["baton.sleep"], slots: 1,
            startedAt: Date(timeIntervalSince1970: 1_700_000_000), busy: 1, interval: 5,
            holding: [HeldAttempt(runID: "r-1", key: "a", attempt: 1), HeldAttempt(runID: "r-1", key: "b/c", attempt: 2)])
        let holdingText =
            #"{"busy":1,"holding":[{"attempt":1,"key":"a","run_id":"r-1"},{"attempt":2,"key":"b/c","run_id":"r-1"}],"host":"h","id":"w-1","#
            + #""interval":5,"pid":42,"pools":["default"],"procedures":["baton.sleep"],"slots":1,"started_at":1700000000,"v":1}"#
        #expect(try WorkerHeartbeat(decoding: Array(holdingText.utf8)) == holding)
        #expect(String(decoding: holding.encoded(), as: UTF8.self) == holdingText, "unchanged")
    }

    private func event(_ text: String) throws -> String { "\(try ReportMessage(decoding: Array(text.utf8)).event)" }
}

extension SchedulerEvent {
    fileprivate var result: NodeResult? {
        if case let .result(result) = self { return result }
        return nil
    }
}
