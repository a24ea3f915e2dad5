import Logging

/// What a running procedure knows about where it runs.
public struct ProcedureContext: Sendable {
    public let runID: String
    public let nodeKey: String
    /// 1 for the first attempt.
    public let attempt: Int
    public let logger: Logger
    /// For a node with `repeat`: the output of its previous run (nil on the first).
    public let previousOutput: JSON?
    private let progressSink: @Sendable (Double, String?) -> Void
    private let logSink: @Sendable (String) -> Void

    public init(
        runID: String, nodeKey: String, attempt: Int, logger: Logger, previousOutput: JSON? = nil,
        progress: @escaping @Sendable (Double, String?) -> Void = { _, _ in },
        log: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.runID = runID
        self.nodeKey = nodeKey
        self.attempt = attempt
        self.logger = logger
        self.previousOutput = previousOutput
        self.progressSink = progress
        self.logSink = log
    }

    /// Writes a line to the node's event log in `baton.events` (bounded per node).
    public func log(_ message: String) {
        logger.info("\(message)")
        logSink(message)
    }

    /// Reports how far the procedure has come (0...1) and what it is doing.
    public func reportProgress(_ fraction: Double, _ message: String? = nil) {
        progressSink(min(max(fraction, 0), 1), message)
    }

    /// True once the node was cancelled or timed out; long loops should check it.
    public var isCancelled: Bool { Task.isCancelled }
}
