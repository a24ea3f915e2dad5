import Baton
import Foundation
import Logging

/// Runs a graph in this process with the same scheduler the coordinator uses,
/// with no database and no broker: for `baton run --local` and for unit tests.
public struct LocalEngine: Sendable {
    public let registry: ProcedureRegistry
    public let maxConcurrency: Int
    public var logger: Logger

    public init(registry: ProcedureRegistry, maxConcurrency: Int = 8, logger: Logger = Logger(label: "baton.local")) {
        self.registry = registry
        self.maxConcurrency = max(1, maxConcurrency)
        self.logger = logger
    }

    /// Runs `graph` to the end. `observe` sees every command the scheduler emits, in order.
    public func run(_ graph: Graph, runID: String = UUID().uuidString.lowercased(),
                    observe: @Sendable (SchedulerCommand) -> Void = { _ in }) async -> RunState {
        var state = RunState(runID: runID, graph: graph)
        var pending: [TaskDispatch] = []
        func apply(_ commands: [SchedulerCommand]) {
            for command in commands {
                observe(command)
                if case let .dispatch(task) = command { pending.append(task) }
            }
        }
        apply(state.handle(.start))
        await withTaskGroup(of: NodeResult.self) { group in
            var running = 0
            while true {
                while running < maxConcurrency, !pending.isEmpty {
                    let task = pending.removeFirst()
                    running += 1
                    apply(state.handle(.started(key: task.key, attempt: task.attempt, worker: "local", at: Date())))
                    group.addTask { await registry.attempt(task, worker: "local", logger: logger) }
                }
                guard running > 0, let result = await group.next() else { break }
                running -= 1
                apply(state.handle(.result(result)))
            }
        }
        return state
    }
}
