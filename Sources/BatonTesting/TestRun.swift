import Baton
import Foundation

/// How a test run ended: per node its status, output, error, attempts and events, with
/// assertion helpers that throw a `TestFailure` naming the node (for XCTest and Swift Testing).
public struct TestRun: Sendable {
    /// The scheduler's final state.
    public let state: RunState
    /// Virtual time when the run started and ended.
    public let startedAt: Date
    public let endedAt: Date
    /// Everything the run did, in order, with virtual times.
    public let events: [TestEvent]

    public var status: RunStatus { state.status }
    public var error: String? { state.error }
    /// Virtual seconds the run took.
    public var duration: TimeInterval { endedAt.timeIntervalSince(startedAt) }

    /// The node's final state; throws if the graph has no such node.
    public func node(_ key: String) throws -> NodeState {
        guard let node = state.nodes[key] else {
            throw TestFailure("no node '\(key)' in the run (nodes: \(state.graph.order.joined(separator: ", ")))")
        }
        return node
    }

    public func status(of key: String) throws -> NodeStatus { try node(key).status }
    public func output(of key: String) throws -> JSON? { try node(key).output }
    public func error(of key: String) throws -> String? { try node(key).error }
    /// Attempts started (0 for a node that never ran).
    public func attempts(of key: String) throws -> Int { try node(key).attempt }

    /// The node's output decoded as `T`; throws if it did not succeed or does not decode.
    public func output<T: Decodable>(of key: String, as type: T.Type = T.self) throws -> T {
        let node = try node(key)
        guard node.status == .succeeded, let output = node.output else {
            throw TestFailure("node '\(key)' has no output: it is \(node.status.rawValue)\(node.error.map { " (\($0))" } ?? "")")
        }
        do {
            return try output.decode(as: T.self)
        } catch {
            throw TestFailure("node '\(key)': output \(output.serialized()) does not decode as \(T.self): \(describeDecodingError(error))")
        }
    }

    /// The output of a node added with a `GraphBuilder`, typed by its handle.
    public func output<Output: Decodable>(of handle: NodeHandle<Output>) throws -> Output {
        try output(of: handle.key, as: Output.self)
    }

    /// The node's events, in order (for a node in a group: its full key).
    public func events(of key: String) -> [TestEvent] { events.filter { $0.node == key } }

    /// The virtual time of the node's first event of `kind` (such as `succeeded` or `retrying`).
    public func time(of kind: String, for key: String) -> Date? { events(of: key).first { $0.kind == kind }?.at }

    // MARK: - Assertions

    /// Throws unless the run succeeded, with the run's `table`.
    @discardableResult
    public func expectSucceeded() throws -> TestRun {
        guard status == .succeeded else { throw TestFailure("expected the run to succeed\n" + table) }
        return self
    }

    /// Throws unless the node ended with `expected`.
    @discardableResult
    public func expect(_ key: String, is expected: NodeStatus) throws -> TestRun {
        let node = try node(key)
        guard node.status == expected else {
            throw TestFailure(
                "node '\(key)' is \(node.status.rawValue), expected \(expected.rawValue)\(node.error.map { " (error: \($0))" } ?? "")\n\(table)")
        }
        return self
    }

    /// Throws unless the node's output equals `expected` (numbers compare by value).
    @discardableResult
    public func expectOutput(of key: String, equals expected: JSON) throws -> TestRun {
        let output = try node(key).output
        guard output == expected else {
            throw TestFailure("node '\(key)': output is \(output?.serialized() ?? "none"), expected \(expected.serialized())")
        }
        return self
    }

    /// Throws unless the node failed with an error containing `text`.
    @discardableResult
    public func expectFailure(of key: String, containing text: String) throws -> TestRun {
        let node = try node(key)
        guard node.status == .failed, node.error?.contains(text) == true else {
            throw TestFailure(
                "node '\(key)' is \(node.status.rawValue) with error \(node.error.map { "'\($0)'" } ?? "none"), expected a failure containing '\(text)'\n\(table)"
            )
        }
        return self
    }
}
