import Foundation

/// The scheduler of one run as a value-type state machine:
/// `handle(event)` updates the state and returns the commands that carry it out.
/// It does no I/O; the coordinator and the in-process engine are its shells.
public struct RunState: Sendable {
    public let runID: String
    public let graph: Graph
    public private(set) var status: RunStatus
    public private(set) var error: String?
    public private(set) var nodes: [String: NodeState]

    private let dependents: [String: [String]]
    /// Per node, how many of its dependencies have not ended yet.
    private var openDependencies: [String: Int]
    /// Nodes that have not ended yet.
    private var remaining: Int

    /// A run as stored: `nodes` gives the state of each node (missing ones are pending).
    public init(runID: String, graph: Graph, status: RunStatus = .pending, error: String? = nil, nodes: [String: NodeState] = [:]) {
        self.runID = runID
        self.graph = graph
        self.status = status
        self.error = error
        var all: [String: NodeState] = [:]
        all.reserveCapacity(graph.order.count)
        for key in graph.order { all[key] = nodes[key] ?? NodeState() }
        self.nodes = all
        self.dependents = graph.dependents()
        var open: [String: Int] = [:]
        var remaining = 0
        for key in graph.order {
            open[key] = graph.nodes[key]!.dependencies.reduce(0) { $0 + (all[$1]!.status.isTerminal ? 0 : 1) }
            if !all[key]!.status.isTerminal { remaining += 1 }
        }
        self.openDependencies = open
        self.remaining = remaining
    }

    /// Applies one event and returns what must be persisted and dispatched.
    public mutating func handle(_ event: SchedulerEvent) -> [SchedulerCommand] {
        var commands: [SchedulerCommand] = []
        guard !status.isTerminal else { return commands }
        switch event {
        case .start:
            if status == .pending {
                status = .running
                commands.append(.runStatus(.running, error: nil))
            }
            var ready: [String] = []
            for key in graph.order {
                let node = nodes[key]!
                switch node.status {
                case .queued, .running:
                    commands.append(.dispatch(dispatch(for: key, attempt: node.attempt, input: node.input ?? .null)))
                case .pending where openDependencies[key] == 0:
                    ready.append(key)
                default:
                    break
                }
            }
            evaluate(ready, into: &commands)
        case let .started(key, attempt, worker, at):
            guard var node = nodes[key], node.status == .queued, node.attempt == attempt else { return commands }
            node.status = .running
            node.worker = worker
            nodes[key] = node
            commands.append(.node(NodeChange(key: key, status: .running, attempt: attempt, worker: worker, startedAt: at)))
        case let .result(result):
            guard var node = nodes[result.key], node.status == .queued || node.status == .running,
                  node.attempt == result.attempt else { return commands }  // stale or duplicate
            node.worker = result.worker ?? node.worker
            if node.status == .queued {
                // The worker skipped its "started" report (a quick attempt): record the start the result implies.
                commands.append(.node(NodeChange(key: result.key, status: .running, attempt: result.attempt, worker: node.worker,
                                                 startedAt: result.startedAt)))
            }
            var change = NodeChange(key: result.key, status: .succeeded, attempt: result.attempt, worker: node.worker,
                                    startedAt: result.startedAt, finishedAt: result.finishedAt)
            switch result.outcome {
            case let .succeeded(output):
                node.status = .succeeded
                node.output = output
                node.error = nil
                change.output = output
            case let .failed(message, _):
                node.status = .failed
                node.error = message
                change = NodeChange(key: result.key, status: .failed, attempt: result.attempt, error: message, worker: node.worker,
                                    startedAt: result.startedAt, finishedAt: result.finishedAt)
            }
            nodes[result.key] = node
            commands.append(.node(change))
            nodeEnded(result.key, into: &commands)
        }
        finishIfDone(into: &commands)
        return commands
    }

    /// How many nodes are in each status.
    public var counts: [NodeStatus: Int] {
        var result: [NodeStatus: Int] = [:]
        for node in nodes.values { result[node.status, default: 0] += 1 }
        return result
    }

    // MARK: - Transitions

    private func dispatch(for key: String, attempt: Int, input: JSON) -> TaskDispatch {
        let node = graph.nodes[key]!
        return TaskDispatch(runID: runID, key: key, attempt: attempt, procedure: node.procedure, input: input,
                            pool: node.pool, priority: node.priority)
    }

    /// Decides each node whose dependencies have all ended, and everything that follows from it.
    private mutating func evaluate(_ keys: [String], into commands: inout [SchedulerCommand]) {
        var work = keys
        var next = 0
        while next < work.count {
            let key = work[next]
            next += 1
            guard nodes[key]!.status == .pending else { continue }
            let definition = graph.nodes[key]!
            if let blocker = definition.dependencies.first(where: { nodes[$0]!.status == .failed || nodes[$0]!.status == .cancelled }) {
                let verb = nodes[blocker]!.status == .failed ? "failed" : "was cancelled"
                end(key, as: .cancelled, error: "dependency '\(blocker)' \(verb)", into: &commands, work: &work)
                continue
            }
            let input: JSON
            do {
                input = try definition.input.resolve { nodes[$0]?.output ?? .null }
            } catch {
                end(key, as: .failed, error: error.description, into: &commands, work: &work)
                continue
            }
            var node = nodes[key]!
            node.status = .queued
            node.attempt += 1
            node.input = input
            node.error = nil
            nodes[key] = node
            commands.append(.node(NodeChange(key: key, status: .queued, attempt: node.attempt, input: input)))
            commands.append(.dispatch(dispatch(for: key, attempt: node.attempt, input: input)))
        }
    }

    /// Ends a node that never ran (cancelled, or failed before dispatch) and queues what it unblocks.
    private mutating func end(_ key: String, as status: NodeStatus, error: String, into commands: inout [SchedulerCommand], work: inout [String]) {
        var node = nodes[key]!
        node.status = status
        node.error = error
        nodes[key] = node
        commands.append(.node(NodeChange(key: key, status: status, attempt: node.attempt, error: error, finishedAt: nil)))
        work.append(contentsOf: unblocked(by: key))
    }

    private mutating func nodeEnded(_ key: String, into commands: inout [SchedulerCommand]) {
        evaluate(unblocked(by: key), into: &commands)
    }

    /// Counts `key` as ended for its dependents and returns those now free to decide.
    private mutating func unblocked(by key: String) -> [String] {
        remaining -= 1
        var free: [String] = []
        for dependent in dependents[key] ?? [] {
            let left = openDependencies[dependent]! - 1
            openDependencies[dependent] = left
            if left == 0 { free.append(dependent) }
        }
        return free
    }

    private mutating func finishIfDone(into commands: inout [SchedulerCommand]) {
        guard remaining == 0, status == .running else { return }
        let failed = graph.order.filter { nodes[$0]!.status == .failed }
        let cancelled = graph.order.filter { nodes[$0]!.status == .cancelled }
        if failed.isEmpty && cancelled.isEmpty {
            status = .succeeded
            error = nil
        } else {
            status = .failed
            if let first = failed.first {
                let more = failed.count > 1 ? " (and \(failed.count - 1) more failed)" : ""
                error = "node '\(first)' failed: \(nodes[first]!.error ?? "unknown error")\(more)"
            } else {
                error = "node '\(cancelled[0])' was cancelled: \(nodes[cancelled[0]]!.error ?? "")"
            }
        }
        commands.append(.runStatus(status, error: error))
    }
}
