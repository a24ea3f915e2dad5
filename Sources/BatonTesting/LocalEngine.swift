import Baton
import Foundation
import Logging

/// Runs a graph in this process with the same scheduler the coordinator uses,
/// with no database and no broker: for `baton run --local` and for unit tests.
/// Timers (retry back-off, repeat waits, `baton.delay`) and timeouts run on the real clock.
public struct LocalEngine: Sendable {
    public let registry: ProcedureRegistry
    public let maxConcurrency: Int
    public var logger: Logger
    public var limits = GraphLimits()

    public init(registry: ProcedureRegistry, maxConcurrency: Int = 8, logger: Logger = Logger(label: "baton.local")) {
        self.registry = registry
        self.maxConcurrency = max(1, maxConcurrency)
        self.logger = logger
    }

    private enum Wake: Sendable {
        case result(NodeResult)
        case progress(String, Int, Double, String?)
        case log(String, Int, String)
        case tick
    }

    /// Runs `graph` to the end. `observe` sees every command the scheduler emits, in order.
    public func run(
        _ graph: Graph, runID: String = UUID().uuidString.lowercased(),
        observe: @Sendable (SchedulerCommand) -> Void = { _ in }
    ) async -> RunState {
        var state = RunState(runID: runID, graph: graph)
        state.maxInputBytes = limits.maxInputBytes
        let (wakes, wake) = AsyncStream<Wake>.makeStream()
        var iterator = wakes.makeAsyncIterator()
        var waiting: [TaskDispatch] = []
        var running: [TaskRef: Task<Void, Never>] = [:]
        var timer: Task<Void, Never>?
        var timerDue: Date?
        var admission = LocalAdmission()
        var answers: [SchedulerEvent] = []
        var answering = false

        func apply(_ commands: [SchedulerCommand]) {
            for command in commands {
                observe(command)
                switch command {
                case let .dispatch(task): waiting.append(task)
                case let .cancelTasks(_, attempts): for ref in attempts { running[ref]?.cancel() }
                default: break
                }
            }
            // Admission answers (mutex, concurrency, cache) lead to more commands: told in a loop, not nested.
            answers += admission.carryOut(runID, commands, now: Date())
            guard !answering else { return }
            answering = true
            while !answers.isEmpty { apply(state.handle(answers.removeFirst())) }
            answering = false
        }

        apply(state.handle(.start))
        while !state.status.isTerminal {
            while running.count < maxConcurrency, !waiting.isEmpty {
                let task = waiting.removeFirst()
                let ref = TaskRef(key: task.key, attempt: task.attempt)
                apply(state.handle(.started(key: task.key, attempt: task.attempt, worker: "local", at: Date())))
                let registry = self.registry, logger = self.logger, maxOutput = self.limits.maxOutputBytes
                running[ref] = Task {
                    let result = await registry.attempt(
                        task, worker: "local", logger: logger, maxOutputBytes: maxOutput,
                        progress: { wake.yield(.progress(task.key, task.attempt, $0, $1)) },
                        log: { wake.yield(.log(task.key, task.attempt, $0)) })
                    wake.yield(.result(result))
                }
            }
            if let due = state.nextWakeUp, due != timerDue {
                timer?.cancel()
                timerDue = due
                timer = Task {
                    let seconds = due.timeIntervalSinceNow
                    if seconds > 0 { try? await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000)) }
                    if !Task.isCancelled { wake.yield(.tick) }
                }
            }
            if running.isEmpty && waiting.isEmpty && state.nextWakeUp == nil { break }  // nothing can happen any more
            guard let next = await iterator.next() else { break }
            switch next {
            case let .result(result):
                running[TaskRef(key: result.key, attempt: result.attempt)] = nil
                apply(state.handle(.result(result)))
            case let .progress(key, attempt, fraction, message):
                apply(state.handle(.progress(key: key, attempt: attempt, fraction: fraction, message: message)))
            case let .log(key, attempt, message):
                apply(state.handle(.log(key: key, attempt: attempt, message: message)))
            case .tick:
                timerDue = nil
                apply(state.handle(.tick))
            }
        }
        timer?.cancel()
        for task in running.values { task.cancel() }
        wake.finish()
        return state
    }
}
