import Baton
import BatonWorker
import Foundation

/// A worker's procedures under the simulator: an attempt takes a seeded time on the virtual clock
/// (`baton.sleep` its own seconds), then the real registered procedure runs to completion and its
/// result is posted; a cancelled sleep ends at once, as the real one does. An attempt whose input
/// has `poisonKey` true kills its worker when it ends instead (`killed`; the simulator crashes it).
/// `onStart` hears of every attempt as it starts.
final class SimulatedExecutor: AttemptExecutor, @unchecked Sendable {
    // Safe: the simulator is single-threaded.
    struct Attempt {
        let id: Int
        let task: TaskDispatch
        let configuration: WorkerConfiguration
        let report: @Sendable (ReportMessage) -> Bool
        let result: @Sendable (AttemptResult<EncodedJSON>) -> Void
        let finished: @Sendable () -> Void
        let startedAt: Date
        var dueAt: Date
        var cancelled = false
    }

    private let clock: SimulationClock
    private var random: SeededRandom
    private var attempts: [Attempt] = []
    private var nextID = 0
    /// Every attempt that ran to its end, as (procedure, canonical input): the simulator's cache check.
    private(set) var executions: [(procedure: String, input: String)] = []
    /// The input member that makes a task kill its worker (`SimulationGraph.poison`).
    static let poisonKey = "sim.poison"
    /// An attempt with `poisonKey` ended: the worker is dead (nothing more is run or posted).
    private(set) var killed = false
    /// Called with each task as its attempt starts.
    var onStart: ((TaskDispatch) -> Void)?

    init(clock: SimulationClock, seed: UInt64) {
        self.clock = clock
        random = SeededRandom(seed: seed)
    }

    func start(
        _ task: TaskDispatch, configuration: WorkerConfiguration, report: @escaping @Sendable (ReportMessage) -> Bool,
        result: @escaping @Sendable (AttemptResult<EncodedJSON>) -> Void, finished: @escaping @Sendable () -> Void
    ) -> AttemptHandle {
        onStart?(task)
        nextID += 1
        let id = nextID
        var seconds = 0.001 + random.unit() * 0.2
        if task.procedure == SleepProcedure.name, let s = task.input["seconds"]?.numberValue { seconds = max(0, s) }
        // As TaskExecutor does, an attempt that is not over at once says it started (there after
        // 10 ms; here at once, which only moves the report earlier).
        if seconds > 0.01 {
            _ = report(.started(runID: task.runID, key: task.key, attempt: task.attempt, worker: configuration.id, at: clock.now))
        }
        attempts.append(
            Attempt(
                id: id, task: task, configuration: configuration, report: report, result: result, finished: finished,
                startedAt: clock.now, dueAt: clock.now.addingTimeInterval(seconds)))
        return AttemptHandle { [weak self] in self?.cancel(id) }
    }

    private func cancel(_ id: Int) {
        guard let i = attempts.firstIndex(where: { $0.id == id }) else { return }
        attempts[i].cancelled = true
        if attempts[i].task.procedure == SleepProcedure.name { attempts[i].dueAt = clock.now }
    }

    /// The earliest time an attempt ends.
    var nextDue: Date? { attempts.map(\.dueAt).min() }

    var isIdle: Bool { attempts.isEmpty }

    /// Ends the attempts due by now, earliest first, until one kills the worker; returns how many.
    @discardableResult
    func runDue() -> Int {
        var count = 0
        while !killed, let i = attempts.indices.filter({ attempts[$0].dueAt <= clock.now }).min(by: { Self.earlier(attempts[$0], attempts[$1]) }) {
            let attempt = attempts.remove(at: i)
            if attempt.task.input[Self.poisonKey] == .bool(true) {
                killed = true
                break
            }
            finish(attempt)
            count += 1
        }
        return count
    }

    static func earlier(_ a: Attempt, _ b: Attempt) -> Bool { (a.dueAt, a.id) < (b.dueAt, b.id) }

    /// The worker died: its attempts vanish without a word.
    func abandonAll() { attempts = [] }

    private func finish(_ a: Attempt) {
        let task = a.task
        let outcome: AttemptOutcome<EncodedJSON>
        if task.procedure == SleepProcedure.name {
            outcome =
                a.cancelled
                ? .failed(message: "cancelled while running", permanent: false)
                : .succeeded(EncodedJSON(JSON.object(JSONObject([("slept", task.input["seconds"] ?? .int(0))]))))
        } else {
            let configuration = a.configuration
            let ran = BlockingBridge.run {
                await configuration.registry.encodedAttempt(task, worker: configuration.id, logger: configuration.logger)
            }
            outcome = ran.outcome
        }
        executions.append((task.procedure, task.input.serialized()))
        a.result(
            AttemptResult(
                key: task.key, attempt: task.attempt, phase: task.phase, outcome: outcome, worker: a.configuration.id,
                startedAt: a.startedAt, finishedAt: clock.now))
        a.finished()
    }
}
