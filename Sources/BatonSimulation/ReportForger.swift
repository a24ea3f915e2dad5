import Baton
import Foundation

/// Someone who holds the broker's login but is no worker: they see what the dashboard shows (a
/// run's id, its nodes' keys and attempts) but never an attempt's token, and publish reports of
/// their own to `baton.reports`. Their results carry `ReportForger.output`, their started reports
/// the worker name `ReportForger.name`, so a node they changed is found in the store.
final class ReportForger {
    static let name = "forger"
    /// The output of every forged result: a node that ends with it took a forged report.
    static let output: JSON = ["forged": true]
    private let reports: MemoryWorkerReportBroker
    private var connected = false

    init(broker: MemoryBroker) {
        reports = broker.workerReports(name: Self.name)
    }

    /// True when `row` shows the work of a forged report.
    static func changed(_ row: MemoryNodeRow) -> Bool { row.worker == name || row.output == output }

    /// Publishes a forged report about `row`'s current attempt: a result (or, one time in three, a
    /// started report), with no token or a made-up one. Returns what it sent, for the trace.
    /// With `alwaysGuess` every report carries a made-up token (the coordinators accept none at all then).
    func forge(_ row: MemoryNodeRow, partition: Int, now: Date, alwaysGuess: Bool = false, random: inout SeededRandom) -> String {
        let phase = row.scheduler["phase"]?.stringValue.flatMap(TaskPhase.init(rawValue:)) ?? .run
        var report: ReportMessage
        if random.index(3) == 0 {
            report = .started(runID: row.runID, key: row.key, attempt: row.attempts, worker: Self.name, at: now)
        } else {
            report = .result(
                runID: row.runID,
                AttemptResult(
                    key: row.key, attempt: row.attempts, phase: phase, outcome: .succeeded(EncodedJSON(Self.output)), worker: Self.name,
                    startedAt: now, finishedAt: now))
        }
        let guessed = random.chance(0.5) || alwaysGuess
        if guessed { report.attemptToken = AttemptToken(high: random.next(), low: random.next()).text }
        do {
            if !connected {
                try reports.connect()
                connected = true
            }
            _ = try reports.publishReport(report.encoded(), partition: partition)
        } catch {
            connected = false
            return "a forged \(report.kind.rawValue) report was not published: \(error)"
        }
        return "a forged \(report.kind.rawValue) report of \(row.key) attempt \(row.attempts) (\(guessed ? "a guessed token" : "no token"))"
    }
}
