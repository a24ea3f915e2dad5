import Baton
import Foundation

/// `--codec`: one hop's messages encoded and decoded in process, no services.
enum CodecBenchmark {
    /// Prints microseconds per operation over `rounds` repetitions.
    static func run(rounds: Int = 20_000) throws {
        let task = TaskDispatch(
            runID: UUID().uuidString.lowercased(), key: "c-41", attempt: 1, procedure: "baton.echo",
            input: ["hop": 41, "previous": 40, "note": "a short string"], pool: "default", priority: 0)
        let output = EncodedJSON(["hop": 41, "previous": 40, "note": "a short string"])
        let result = AttemptResult<EncodedJSON>(
            key: task.key, attempt: 1, outcome: .succeeded(output), worker: "w-1",
            startedAt: Date(), finishedAt: Date())
        func time(_ name: String, _ body: () throws -> Void) throws {
            let clock = ContinuousClock()
            let began = clock.now
            do { for _ in 0..<rounds { try body() } } catch { throw BenchmarkError("\(name): \(error)") }
            let elapsed = clock.now - began
            let micros = Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) / 1e12
            print("codec  " + name.padding(toLength: 18, withPad: " ", startingAt: 0) + String(format: "%8.2f µs", micros / Double(rounds)))
        }
        let taskBody = task.encoded()
        let reportBody = ReportMessage.result(runID: task.runID, result).encoded()
        try time("task encode") { _ = task.encoded() }
        try time("task decode") { _ = try TaskDispatch(decoding: taskBody) }
        try time("report encode") { _ = ReportMessage.result(runID: task.runID, result).encoded() }
        try time("report decode") { _ = try ReportMessage(decoding: reportBody).event }
        try time("parse (no Codable)") { _ = try JSONParser.parse(reportBody) }
    }
}
