import Foundation
import Testing

@testable import Baton

/// Tasks and reports are written and read without Foundation's coders; what they write must read back
/// through `Codable` to the same message, and what `Codable` writes must read the same both ways.
@Suite("wire formats without Codable")
struct WireShortcutTests {
    static let run = "0b7d4c7e-2f0a-4d7e-9d0e-3a1f0e6c5b21"
    static let at = Date(timeIntervalSince1970: 1_795_000_000.123456)

    static let tasks: [TaskDispatch] = [
        TaskDispatch(runID: run, key: "n-1", attempt: 1, procedure: "baton.echo", input: ["i": 1, "b": "x\"\\\u{1}é"], pool: "default", priority: 0),
        TaskDispatch(
            runID: run, key: "g/m/3", attempt: 7, procedure: "demo.check", input: .array([1.5, .null, true]), pool: "gpu", priority: 9,
            phase: .condition, timeout: 2.5, previousOutput: ["prev": [1, 2]]),
        TaskDispatch(runID: run, key: "x", attempt: 2, procedure: "p", input: .null, pool: "p", priority: 3, timeout: 30),
    ]

    static let reports: [ReportMessage] = {
        var spawned = ReportMessage.result(
            runID: run,
            AttemptResult(
                key: "s", attempt: 1, outcome: .spawned(EncodedJSON(["nodes": ["a": ["procedure": "baton.echo"]]])), worker: "w",
                startedAt: at, finishedAt: at))
        spawned.phase = .run
        return [
            .started(runID: run, key: "n-1", attempt: 3, worker: "worker-a\"1", at: at),
            .result(
                runID: run,
                AttemptResult(
                    key: "n-1", attempt: 1, outcome: .succeeded(EncodedJSON(["out": "<script>", "n": 12])), worker: "w-1", startedAt: at,
                    finishedAt: at.addingTimeInterval(0.25))),
            .result(
                runID: run,
                AttemptResult(
                    key: "c", attempt: 2, phase: .condition, outcome: .succeeded(EncodedJSON(true)), worker: nil, startedAt: nil, finishedAt: nil)),
            .result(
                runID: run,
                AttemptResult<EncodedJSON>(
                    key: "f", attempt: 4, outcome: .failed(message: "boom \"quoted\"", permanent: true), worker: "w", startedAt: at, finishedAt: at)),
            spawned,
            .progress(runID: run, key: "p", attempt: 1, fraction: 0.5, message: "half"),
            .log(runID: run, key: "p", attempt: 1, message: "a line"),
        ]
    }()

    @Test func tasksReadBackThroughCodable() throws {
        for task in Self.tasks {
            let bytes = task.encoded()
            #expect(try WireFormat.decode(TaskDispatch.self, from: bytes, what: "task") == task)
            #expect(TaskDispatch.read(bytes) == task)
            #expect(TaskDispatch.read(WireFormat.encode(task)) == task, "what Codable writes reads the same way")
            #expect(bytes == WireFormat.encode(task), "the bytes Codable writes, nested members sorted alike")
        }
    }

    @Test func reportsReadBackThroughCodable() throws {
        for report in Self.reports {
            let bytes = report.encoded()
            let viaCodable = try WireFormat.decode(ReportMessage.self, from: bytes, what: "report")
            let direct = try ReportMessage(decoding: bytes)
            #expect(same(viaCodable.event, direct.event), "\(String(decoding: bytes, as: UTF8.self))")
            #expect(direct.runID == report.runID && direct.key == report.key && direct.attempt == report.attempt)
            if report.kind == .result || report.kind == .started {
                #expect(ReportMessage.read(bytes) != nil, "started and result reports take the short way")
            }
        }
    }

    @Test func oddShapesAreLeftToCodableAndRefusedTheSameWay() {
        let bad: [String] = [
            #"{"v": 2, "type": "result", "run": "r", "node": "n", "attempt": 1, "status": "succeeded"}"#,
            #"{"v": 1, "type": "result", "run": "r", "node": "n", "attempt": "1", "status": "succeeded"}"#,
            #"{"v": 1, "type": "result", "run": "r", "node": "n", "attempt": 1, "status": "exploded"}"#,
            #"{"v": 1, "type": "result", "run": "r", "node": "n", "attempt": 1, "status": "failed"}"#,
            #"{"v": 1, "type": "result", "run": "r", "node": "n", "attempt": 1, "attempt": 2, "status": "succeeded"}"#,
        ]
        for text in bad {
            let bytes = Array(text.utf8)
            #expect(ReportMessage.read(bytes) == nil, "\(text)")
            #expect(
                outcome { try ReportMessage(decoding: bytes) } == outcome { try WireFormat.decode(ReportMessage.self, from: bytes, what: "report") })
        }
        #expect(TaskDispatch.read(Array(#"{"v": 1, "run": "r", "node": "n", "attempt": 1.5}"#.utf8)) == nil)
    }

    /// The same event (object members compared without regard to order, as `JSON` compares them).
    private func same(_ a: SchedulerEvent, _ b: SchedulerEvent) -> Bool {
        switch (a, b) {
        case let (.result(x), .result(y)):
            return x.key == y.key && x.attempt == y.attempt && x.phase == y.phase && x.outcome == y.outcome && x.worker == y.worker
                && x.startedAt == y.startedAt && x.finishedAt == y.finishedAt
        default: return String(describing: a) == String(describing: b)
        }
    }

    /// "ok", or the error's description.
    private func outcome(_ body: () throws -> ReportMessage) -> String {
        do {
            _ = try body()
            return "ok"
        } catch { return "\(error)" }
    }
}
