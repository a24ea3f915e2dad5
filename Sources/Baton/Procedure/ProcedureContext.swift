import Logging

/// What a running procedure knows about where it runs.
public struct ProcedureContext: Sendable {
    public let runID: String
    public let nodeKey: String
    /// 1 for the first attempt.
    public let attempt: Int
    public let logger: Logger
    private let progressSink: @Sendable (Double, String?) -> Void

    public init(runID: String, nodeKey: String, attempt: Int, logger: Logger,
                progress: @escaping @Sendable (Double, String?) -> Void = { _, _ in }) {
        self.runID = runID
        self.nodeKey = nodeKey
        self.attempt = attempt
        self.logger = logger
        self.progressSink = progress
    }

    /// Reports how far the procedure has come (0...1) and what it is doing.
    public func reportProgress(_ fraction: Double, _ message: String? = nil) {
        progressSink(min(max(fraction, 0), 1), message)
    }

    /// True once the node was cancelled or timed out; long loops should check it.
    public var isCancelled: Bool { Task.isCancelled }
}
