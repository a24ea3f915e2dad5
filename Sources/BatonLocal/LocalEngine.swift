import Baton
import Foundation
import Logging

/// Runs a graph in this process with the same scheduler the coordinator uses,
/// with no database and no broker: for `baton run --local` and for unit tests.
/// Timers (retry back-off, repeat waits, `baton.delay`) and timeouts run on the real clock,
/// or on a `TestClock` when `clock` is set, so a test of hour-long waits takes no real time.
public struct LocalEngine: Sendable {
    public let registry: ProcedureRegistry
    public let maxConcurrency: Int
    public var logger: Logger
    public var limits = GraphLimits()
    /// The clock timers run on: nil for the real one (`baton run --local`), a `TestClock` in tests.
    public var clock: TestClock?
    /// Seeds random waits and jitter so a test sees the same ones every time; nil for system randomness.
    public var randomSeed: UInt64?
    /// At most this many nodes with a task out at once (`RunState.dispatchWindow`).
    public var dispatchWindow = RunState.defaultDispatchWindow

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
        state.dispatchWindow = dispatchWindow
        let (wakes, wake) = AsyncStream<Wake>.makeStream()
        var iterator = wakes.makeAsyncIterator()
        var waiting: [TaskDispatch] = []
        var running: [TaskRef: Task<Void, Never>] = [:]
        var timer: Task<Void, Never>?
        var timerDue: Date?
        let clock = self.clock
        let seeded = randomSeed.map(SeededRandom.init(seed:))
        let random: () -> Double = seeded.map { generator in { generator.next() } } ?? { Double.random(in: 0..<1) }
        func now() -> Date { clock?.now ?? Date() }
        var startedAt: [TaskRef: Date] = [:]  // virtual start times, with a clock
        let listener = clock?.mode == .manual ? clock?.onAdvance { wake.yield(.tick) } : nil
        var admission = LocalAdmission()
        admission.slots = maxConcurrency
        var answers: [SchedulerEvent] = []
        var answering = false
        /// The run's next timer or the next rate token a node waits for, whichever comes first.
        func nextWakeUp() -> Date? { [state.nextWakeUp, admission.nextToken].compactMap { $0 }.min() }

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
            answers += admission.carryOut(runID, commands, now: now())
            guard !answering else { return }
            answering = true
            while !answers.isEmpty { apply(state.handle(answers.removeFirst(), at: now(), random: random)) }
            answering = false
        }

        func tick() {
            answers += admission.tick(now: now())
            apply(state.handle(.tick, at: now(), random: random))
        }

        apply(state.handle(.start, at: now(), random: random))
        while !state.status.isTerminal {
            while running.count < maxConcurrency, !waiting.isEmpty {
                let task = waiting.removeFirst()
                let ref = TaskRef(key: task.key, attempt: task.attempt)
                if clock != nil { startedAt[ref] = now() }
                apply(state.handle(.started(key: task.key, attempt: task.attempt, worker: "local", at: now()), at: now(), random: random))
                let registry = self.registry, logger = self.logger, maxOutput = self.limits.maxOutputBytes
                running[ref] = Task {
                    let result = await registry.attempt(
                        task, worker: "local", logger: logger, maxOutputBytes: maxOutput,
                        progress: { wake.yield(.progress(task.key, task.attempt, $0, $1)) },
                        log: { wake.yield(.log(task.key, task.attempt, $0)) })
                    wake.yield(.result(result))
                }
            }
            if let clock {
                if running.isEmpty, waiting.isEmpty, let due = nextWakeUp() {
                    if clock.mode == .automatic {  // nothing else can happen before it: go there at once
                        clock.jump(to: due)
                        tick()
                        if nextWakeUp() == due, waiting.isEmpty { break }  // a timer that does not fire: never spin
                        continue
                    }
                }
                clock.engineWaits(for: nextWakeUp(), busy: !running.isEmpty)
            } else if let due = nextWakeUp(), due != timerDue {
                timer?.cancel()
                timerDue = due
                timer = Task {
                    let seconds = due.timeIntervalSinceNow
                    if seconds > 0 { try? await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000)) }
                    if !Task.isCancelled { wake.yield(.tick) }
                }
            }
            if running.isEmpty && waiting.isEmpty && nextWakeUp() == nil { break }  // nothing can happen any more
            guard let next = await iterator.next() else { break }
            clock?.engineAwake()
            switch next {
            case var .result(result):
                let ref = TaskRef(key: result.key, attempt: result.attempt)
                running[ref] = nil
                if clock != nil {  // the attempt's times on the clock the run sees
                    let errorType = result.errorType
                    result = NodeResult(
                        key: result.key, attempt: result.attempt, phase: result.phase, outcome: result.outcome,
                        worker: result.worker, startedAt: startedAt.removeValue(forKey: ref) ?? now(), finishedAt: now())
                    result.errorType = errorType
                }
                apply(state.handle(.result(result), at: now(), random: random))
            case let .progress(key, attempt, fraction, message):
                apply(state.handle(.progress(key: key, attempt: attempt, fraction: fraction, message: message), at: now(), random: random))
            case let .log(key, attempt, message):
                apply(state.handle(.log(key: key, attempt: attempt, message: message), at: now(), random: random))
            case .tick:
                timerDue = nil
                tick()
            }
        }
        timer?.cancel()
        if let clock {
            if let listener { clock.removeListener(listener) }
            clock.engineEnded()
        }
        for task in running.values { task.cancel() }
        wake.finish()
        return state
    }
}
