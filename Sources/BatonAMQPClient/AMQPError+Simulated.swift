extension AMQPError {
    /// An error as the client would raise it, for in-memory twins of the broker seams (the cluster
    /// simulator's `MemoryBroker`): a lost connection, a refused connect, a channel the broker closed.
    public static func simulated(
        _ kind: Kind, _ detail: String, operation: String? = nil, channel: UInt16? = nil, replyCode: UInt16? = nil
    ) -> AMQPError {
        AMQPError(kind, detail, operation: operation, channel: channel, replyCode: replyCode)
    }
}
