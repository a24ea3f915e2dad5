import Baton
import BatonDemo
import BatonYAML
import Foundation
import Logging

/// Runs graphs in this process for tests, with the real scheduler, a `TestClock` (hour-long
/// back-offs and delays take no real time) and seeded randomness. Works with XCTest and
/// Swift Testing alike: failures are thrown `TestFailure`s with a message naming node and field.
///
/// ```swift
/// var test = GraphTest()
/// test.register(Greet())
/// let run = try await test.run(json: #"{"nodes": {"g": {"procedure": "acme.greet", "input": {"name": "Ada"}}}}"#)
/// try run.expectSucceeded()
/// #expect(try run.output(of: "g", as: Greet.Output.self).greeting == "Hello, Ada!")
/// ```
public struct GraphTest: Sendable {
    /// The procedures the run may use (default: the built-in and demo ones).
    public var registry: ProcedureRegistry
    /// Where virtual time starts; each run gets a fresh automatic clock from here (see `run(_:clock:)`).
    public var start: Date = TestClock.defaultStart
    /// Seeds random waits and jitter.
    public var randomSeed: UInt64 = 0
    public var maxConcurrency = 8
    public var limits = GraphLimits()
    /// Where procedures' log lines go (default: nowhere; they are also the run's `log` events).
    public var logger = Logger(label: "baton.test", factory: { _ in SwiftLogNoOpLogHandler() })

    public init(registry: ProcedureRegistry = .demo) {
        self.registry = registry
    }

    /// Adds a procedure of your own (or replaces one with a fake).
    public mutating func register<P: Procedure>(_ procedure: P) {
        registry.register(procedure)
    }

    /// Adds a procedure of your own that may spawn a sub-graph.
    public mutating func register<P: SpawningProcedure>(_ procedure: P) {
        registry.register(procedure)
    }

    /// Runs a validated graph to its end. Pass a `.manual` clock to move time yourself.
    public func run(_ graph: Graph, clock: TestClock? = nil, runID: String = "test-run") async -> TestRun {
        let clock = clock ?? TestClock(start: start)
        var engine = LocalEngine(registry: registry, maxConcurrency: maxConcurrency, logger: logger)
        engine.limits = limits
        engine.clock = clock
        engine.randomSeed = randomSeed
        let recorder = CommandRecorder(clock: clock)
        let began = clock.now
        let state = await engine.run(graph, runID: runID) { recorder.record($0) }
        return TestRun(state: state, startedAt: began, endedAt: clock.now, events: recorder.events)
    }

    /// Validates a graph document (JSON text) against this registry's procedures, then runs it;
    /// `input` is the run's input (as `baton submit --input`).
    public func run(json text: String, input: JSON? = nil, clock: TestClock? = nil) async throws -> TestRun {
        await run(try decode(Array(text.utf8), input: input), clock: clock)
    }

    /// Validates a graph file (JSON, or YAML for `.yaml` and `.yml`) against this registry's procedures, then runs it.
    public func run(file path: String, input: JSON? = nil, clock: TestClock? = nil) async throws -> TestRun {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw TestFailure("cannot read graph file \(path)")
        }
        let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        var decoder = GraphDecoder(knownProcedures: Set(registry.names), limits: limits)
        decoder.servedVersions = ServedVersions(everywhere: registry.names)
        do {
            return await run(
                try GraphFileDecoding.decode(Array(data), path: path, decoder: decoder, input: input, defaultName: name).graph, clock: clock)
        } catch {
            switch error {
            case let .yaml(yaml): throw TestFailure("\(path): \(yaml)")
            case let .tooLarge(size, limit): throw TestFailure("\(path): graph file is \(size) bytes, more than the limit of \(limit)")
            case let .invalid(problems, yaml):
                let lines = GraphFileDecoding.lines(problems, path: path, yaml: yaml).map { "  " + $0 }
                throw TestFailure("graph was rejected:\n" + lines.joined(separator: "\n"))
            }
        }
    }

    /// Builds (and so validates) a graph from a `GraphBuilder`, then runs it; `input` is the run's
    /// input, merged over the defaults the builder declared.
    public func run(_ builder: GraphBuilder, input: JSON? = nil, clock: TestClock? = nil) async throws -> TestRun {
        do {
            return await run(try builder.build(knownProcedures: Set(registry.names), limits: limits, input: input), clock: clock)
        } catch {
            throw TestFailure("graph was rejected:\n" + error.problems.map { "  \($0)" }.joined(separator: "\n"))
        }
    }

    private func decode(_ bytes: [UInt8], input: JSON?, defaultName: String = "unnamed") throws -> Graph {
        do {
            var decoder = GraphDecoder(knownProcedures: Set(registry.names), limits: limits)
            decoder.servedVersions = ServedVersions(everywhere: registry.names)
            return try decoder.decode(bytes, input: input, defaultName: defaultName)
        } catch {
            throw TestFailure("graph was rejected:\n" + error.problems.map { "  \($0)" }.joined(separator: "\n"))
        }
    }
}
