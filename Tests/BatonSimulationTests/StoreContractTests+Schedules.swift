import Baton
import BatonStore
import Foundation
import Testing

@testable import BatonSimulation

/// The contract of schedules and signals: the same on the real `Store` and on `MemoryStore`.
@Suite("store contract: schedules and signals")
struct ScheduleSignalContractTests {
    static let graph = #"{"nodes": {"a": {"procedure": "p"}, "s": {"signal": "go", "after": ["a"]}}}"#

    /// `body`'s transcript on both stores: they must agree, and PostgreSQL's is `expected`.
    static func onBoth(expected: [String], _ body: (ContractBackend, any ScheduleStore, inout [String]) throws -> [String]) throws {
        var transcripts: [String: [String]] = [:]
        for backend in [try ContractBackend.postgres(), try ContractBackend.memory()] {
            var runs: [String] = []
            defer { backend.finish(runs) }
            let schedules: any ScheduleStore = try #require(backend.memory ?? backend.postgres)
            transcripts[backend.name] = try body(backend, schedules, &runs)
        }
        #expect(transcripts["postgres"] == expected)
        #expect(transcripts["memory"] == transcripts["postgres"])
    }

    @Test func aScheduledRunIsSubmittedOncePerIdempotencyKey() throws {
        try Self.onBoth(expected: ["first created", "again the same run, not created", "another key: another run, created"]) { _, schedules, runs in
            let graph = try StoreContractTests.graph(Self.graph)
            let key = "schedule:contract-\(UUID().uuidString):"
            let first = try schedules.submitScheduled(graph, idempotencyKey: key + "1")
            let again = try schedules.submitScheduled(graph, idempotencyKey: key + "1")
            let other = try schedules.submitScheduled(graph, idempotencyKey: key + "2")
            runs += [first.id, other.id]
            return [
                "first \(first.created ? "created" : "not created")",
                "again \(again.id == first.id ? "the same run" : "another run"), \(again.created ? "created" : "not created")",
                "another key: \(other.id == first.id ? "the same run" : "another run"), \(other.created ? "created" : "not created")",
            ]
        }
    }

    @Test func aScheduleStepIsRecordedOnlyOverTheNextTimeItWasReadWith() throws {
        try Self.onBoth(expected: [
            "first step: true", "again from no next time: false", "from 100: true",
            "next 200.0 queued 150.0 fired 100.0 run true skipped 2 reason late error boom", "paused: false",
        ]) { backend, schedules, runs in
            let name = "contract-\(UUID().uuidString)"
            let row = ScheduleRow(
                name: name, graph: try JSONParser.parse(Self.graph), input: nil, cron: nil, everySeconds: 60, timezone: "UTC",
                overlap: .allow, catchUp: .all)
            if let memory = backend.memory { memory.addSchedule(row) } else { _ = try backend.postgres?.addSchedule(row) }
            defer { _ = try? backend.postgres?.deleteSchedule(name) }
            let run = try backend.submit(try StoreContractTests.graph(Self.graph))
            runs.append(run)
            var first = ScheduleStep(state: ScheduleState(nextDue: 100))
            first.skipped = [ScheduleSkip(due: 90, reason: "missed")]
            var second = ScheduleStep(state: ScheduleState(nextDue: 200, queued: 150))
            second.skipped = [ScheduleSkip(due: 120, reason: "late")]
            var lines = [
                "first step: \(try schedules.recordScheduleStep(name, expectedNext: nil, step: first, lastFired: 95, lastRunID: nil, error: nil))",
                "again from no next time: \(try schedules.recordScheduleStep(name, expectedNext: nil, step: first, lastFired: nil, lastRunID: nil, error: nil))",
                "from 100: \(try schedules.recordScheduleStep(name, expectedNext: 100, step: second, lastFired: 100, lastRunID: run, error: "boom"))",
            ]
            let stored = try #require(try backend.memory?.schedule(named: name) ?? backend.postgres?.schedule(named: name))
            lines.append(
                "next \(stored.nextFireAt ?? -1) queued \(stored.queuedAt ?? -1) fired \(stored.lastFiredAt ?? -1) run \(stored.lastRunID == run) "
                    + "skipped \(stored.skipped) reason \(stored.lastSkipReason ?? "-") error \(stored.lastError ?? "-")")
            if let memory = backend.memory {
                memory.tables.schedules[name]?.paused = true
            } else {
                _ = try backend.postgres?.setSchedulePaused(name, true)
            }
            lines.append(
                "paused: \(try schedules.recordScheduleStep(name, expectedNext: 200, step: first, lastFired: nil, lastRunID: nil, error: nil))")
            return lines
        }
    }

    @Test func aSignalIsARequestUntilHandledAndASecondOneIsRefused() throws {
        try Self.onBoth(expected: [
            #"open: signal s {"ok":true}"#,
            "second: node 's' already has a signal on its way to the coordinator; a second one is refused",
            "not a signal node: node 'a' is not a signal node (it runs p); only a node of kind signal takes a signal",
            "no such node: run RUN has no node 'zz'", "open after handled: 0",
        ]) { backend, _, runs in
            let run = try backend.submit(try StoreContractTests.graph(Self.graph))
            runs.append(run)
            func signal(_ node: String) -> String {
                do {
                    if let memory = backend.memory {
                        try memory.signal(run: run, node: node, value: ["ok": true])
                    } else {
                        _ = try backend.postgres?.signal(run: run, node: node, value: ["ok": true])
                    }
                    return "stored"
                } catch { return "\(error)".replacingOccurrences(of: run, with: "RUN") }
            }
            _ = signal("s")
            let open = try backend.store.openRequests().filter { $0.runID == run }
            var lines = open.map { "open: \($0.kind.rawValue) \($0.node ?? "-") \($0.value?.serialized(sortedKeys: true) ?? "-")" }
            lines += ["second: \(signal("s"))", "not a signal node: \(signal("a"))", "no such node: \(signal("zz"))"]
            _ = try backend.store.apply(
                [], heartbeats: [], handledRequests: open.map(\.id), confirmedBatch: nil, holds: [], now: Date(timeIntervalSince1970: 1_800_000_001))
            lines.append("open after handled: \(try backend.store.openRequests().filter { $0.runID == run }.count)")
            return lines
        }
    }
}
