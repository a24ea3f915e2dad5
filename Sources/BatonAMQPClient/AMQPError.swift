/// An error from the AMQP client: one clear line, never containing a password.
///
/// Check ``isConnectionLost`` to decide whether to reconnect; channel-level
/// errors raised by the broker (404 NOT_FOUND, 406 PRECONDITION_FAILED, …)
/// carry ``replyCode`` and ``replyText`` and leave the connection usable
/// (reopen the channel with `openChannel`).
public struct AMQPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, broadly.
    public enum Kind: Sendable, Equatable {
        /// The AMQP URL could not be parsed.
        case invalidURL
        /// Could not open the socket or complete the handshake.
        case connectionFailed
        /// The broker refused the login: a wrong user name or password (403), or a vhost that
        /// does not exist or may not be used (530). Connecting again will not help.
        case loginRefused
        /// The connection is gone (socket error, heartbeat timeout, connection.close
        /// from the broker, or use after `close()`); make a new one.
        case connectionLost
        /// The broker closed a channel (see ``AMQPError/replyCode``).
        case channelClosed
        /// The channel was never opened on this connection.
        case channelNotOpen
        /// The broker negatively acknowledged at least one publish.
        case nacked
        /// A wait (such as `waitForConfirms`) passed its deadline.
        case timeout
        /// The broker cancelled a consumer (for example, its queue was deleted).
        case consumerCancelled
        /// The caller passed something the client cannot use.
        case invalidArgument
    }

    /// What went wrong, broadly.
    public let kind: Kind
    /// The operation that failed, such as `queue.declare 'tasks'`.
    public let operation: String?
    /// The channel involved, if any.
    public let channel: UInt16?
    /// The AMQP reply code sent by the broker (404, 406, 320, …), if any.
    public let replyCode: UInt16?
    /// The broker's reply text or the library's explanation.
    public let detail: String

    /// The broker's reply text, when the broker sent one.
    public var replyText: String? { replyCode == nil ? nil : detail }

    /// True when the connection cannot be used any more and callers should reconnect.
    public var isConnectionLost: Bool { kind == .connectionLost }

    package init(_ kind: Kind, _ detail: String, operation: String? = nil, channel: UInt16? = nil, replyCode: UInt16? = nil) {
        self.kind = kind
        self.detail = detail
        self.operation = operation
        self.channel = channel
        self.replyCode = replyCode
    }

    public var description: String {
        var line: String
        switch kind {
        case .invalidURL: line = "invalid AMQP URL"
        case .connectionFailed: line = "AMQP connection failed"
        case .loginRefused: line = "AMQP login refused"
        case .connectionLost: line = "AMQP connection lost"
        case .channelClosed: line = "AMQP channel \(channel.map(String.init) ?? "?") closed by the broker"
        case .channelNotOpen: line = "AMQP channel \(channel.map(String.init) ?? "?") is not open"
        case .nacked: line = "AMQP broker rejected published messages"
        case .timeout: line = "AMQP wait timed out"
        case .consumerCancelled: line = "AMQP consumer cancelled by the broker"
        case .invalidArgument: line = "invalid AMQP argument"
        }
        if let operation { line += " during \(operation)" }
        line += ": "
        if let replyCode { line += "\(replyCode) " }
        line += detail
        return line
    }
}
