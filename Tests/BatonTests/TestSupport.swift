import Baton
import BatonTesting
import Foundation
import Testing

// Shared helpers for the BatonTests target: parsing, graph decoding and a
// small harness that drives a `RunState` and records what it emits.

/// Parses JSON text, failing the calling test with the parser's message.
func json(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSON {
    do {
        return try JSONParser.parse(text)
    } catch {
        Issue.record("could not parse test JSON: \(error)", sourceLocation: sourceLocation)
        throw error
    }
}

/// The parse error for `text`, or nil if it parsed.
func parseError(_ text: String, maxDepth: Int = JSONParser.defaultMaxDepth) -> JSONParseError? {
    parseError(Array(text.utf8), maxDepth: maxDepth)
}

func parseError(_ bytes: [UInt8], maxDepth: Int = JSONParser.defaultMaxDepth) -> JSONParseError? {
    do {
        _ = try JSONParser.parse(bytes, maxDepth: maxDepth)
        return nil
    } catch {
        return error
    }
}

/// "int", "double" or another kind name: `==` treats 1 and 1.0 as equal, so
/// tests that care about the representation compare this too.
func representation(_ value: JSON) -> String {
    switch value {
    case .int: return "int"
    case .double: return "double"
    default: return value.kindName
    }
}

/// Decodes a graph that must be valid.
func graph(
    _ text: String, knownProcedures: Set<String>? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> Graph {
    do {
        return try GraphDecoder(knownProcedures: knownProcedures).decode(Array(text.utf8))
    } catch {
        Issue.record("graph was rejected: \(error)", sourceLocation: sourceLocation)
        throw error
    }
}

/// The problems reported for a graph that must be invalid (empty if it was accepted).
func problems(_ text: String, knownProcedures: Set<String>? = nil, limits: GraphLimits = GraphLimits()) -> [GraphProblem] {
    problems(bytes: Array(text.utf8), knownProcedures: knownProcedures, limits: limits)
}

func problems(bytes: [UInt8], knownProcedures: Set<String>? = nil, limits: GraphLimits = GraphLimits()) -> [GraphProblem] {
    do {
        _ = try GraphDecoder(knownProcedures: knownProcedures, limits: limits).decode(bytes)
        return []
    } catch {
        return error.problems
    }
}

/// Text of a JSON string literal for `s` (for building graph files in code).
func quoted(_ s: String) -> String { JSON.string(s).serialized() }

// MARK: - Scheduler commands

extension Array where Element == SchedulerCommand {
    var dispatches: [TaskDispatch] {
        compactMap {
            if case let .dispatch(task) = $0 { return task }; return nil
        }
    }

    /// The node changes, without the bookkeeping snapshot and reset flag (tested on their own).
    var nodeChanges: [NodeChange] {
        compactMap {
            guard case var .node(change) = $0 else { return nil }
            change.bookkeeping = nil
            change.reset = false
            return change
        }
    }

    var events: [(key: String, kind: String, detail: JSON)] {
        compactMap {
            if case let .event(key, kind, detail) = $0 { return (key, kind.rawValue, detail) }; return nil
        }
    }

    var cancelled: [TaskRef] {
        flatMap { (c: SchedulerCommand) -> [TaskRef] in
            if case let .cancelTasks(_, refs) = c { return refs }; return []
        }
    }

    var runStatuses: [RunStatus] {
        compactMap {
            if case let .runStatus(status, _) = $0 { return status }; return nil
        }
    }

    var runErrors: [String?] {
        compactMap {
            if case let .runStatus(_, error) = $0 { return error }; return nil
        }
    }

    func changes(for key: String) -> [NodeChange] { nodeChanges.filter { $0.key == key } }
}

/// Drives a `RunState` event by event and keeps every command it emitted.
struct Harness {
    var state: RunState
    private(set) var log: [SchedulerCommand] = []
    /// The harness's clock: events happen at `now`, which only `advance` moves.
    var now = Date(timeIntervalSince1970: 1_000_000)
    /// What the scheduler gets for random waits and jitter.
    var random = 0.5

    init(_ graph: Graph, runID: String = "run-1") {
        state = RunState(runID: runID, graph: graph)
    }

    init(state: RunState) {
        self.state = state
    }

    @discardableResult
    mutating func send(_ event: SchedulerEvent) -> [SchedulerCommand] {
        let r = random
        let commands = state.handle(event, at: now, random: { r })
        log.append(contentsOf: commands)
        return commands
    }

    /// Moves the clock on and sends `.tick`.
    @discardableResult
    mutating func advance(_ seconds: Double) -> [SchedulerCommand] {
        now = now.addingTimeInterval(seconds)
        return send(.tick)
    }

    @discardableResult
    mutating func start() -> [SchedulerCommand] { send(.start) }

    /// Reports success for the node's current attempt (or `attempt`).
    @discardableResult
    mutating func succeed(_ key: String, _ output: JSON, attempt: Int? = nil, worker: String? = "w") -> [SchedulerCommand] {
        let n = attempt ?? state.nodes[key]?.attempt ?? 1
        return send(.result(NodeResult(key: key, attempt: n, outcome: .succeeded(output), worker: worker)))
    }

    /// Reports failure for the node's current attempt (or `attempt`).
    @discardableResult
    mutating func fail(_ key: String, _ message: String, permanent: Bool = true, attempt: Int? = nil) -> [SchedulerCommand] {
        let n = attempt ?? state.nodes[key]?.attempt ?? 1
        return send(.result(NodeResult(key: key, attempt: n, outcome: .failed(message: message, permanent: permanent), worker: "w")))
    }

    /// Runs the graph to the end: every dispatched task is answered, first in first out, by `answer`.
    mutating func runToEnd(_ answer: (TaskDispatch) -> NodeResult.Outcome) {
        var queue = start().dispatches
        while !queue.isEmpty {
            let task = queue.removeFirst()
            queue += send(.result(NodeResult(key: task.key, attempt: task.attempt, outcome: answer(task), worker: "w"))).dispatches
        }
    }
}

// MARK: - Procedures

/// A thread-safe list, for collecting what `@Sendable` callbacks see.
final class Collected<Element>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [Element] = []

    func append(_ item: Element) { lock.lock(); items.append(item); lock.unlock() }
    var all: [Element] { lock.lock(); defer { lock.unlock() }; return items }
}

/// One attempt of `procedure` on `input`, as a worker would run it.
func runAttempt(
    _ procedure: String, _ input: JSON, attempt: Int = 1, registry: ProcedureRegistry = .builtIn,
    progress: @escaping @Sendable (Double, String?) -> Void = { _, _ in }
) async -> NodeResult {
    let task = TaskDispatch(
        runID: "run-t", key: "node-t", attempt: attempt, procedure: procedure, input: input,
        pool: "default", priority: 0)
    return await registry.attempt(task, worker: "test-worker", logger: testLogger, progress: progress)
}

let testLogger = LocalEngine(registry: ProcedureRegistry()).logger
