import BatonSeams

extension AMQPError {
    /// What a client does about a broker error.
    public enum Disposition: String, Sendable, Equatable {
        /// A lost socket, a missed heartbeat, a forced close (320), a deleted queue, a refused
        /// publish: connect again (with back-off) and go on.
        case reconnect
        /// The broker refuses what is configured: an unparsable URL, a wrong password (403), a
        /// missing vhost (530), a declare that disagrees with what exists (406). Fatal at start-up,
        /// with one line; at run time logged with its code and retried with back-off capped at 30 s.
        case configuration
    }

    /// The reply code as a value, when the broker sent one.
    public var code: AMQPReplyCode? { replyCode.map(AMQPReplyCode.init(rawValue:)) }

    /// The decision table. docs/operations.md shows it to users; keep both in step.
    public var disposition: Disposition {
        switch kind {
        case .invalidURL, .loginRefused, .invalidArgument: return .configuration
        default: break
        }
        guard let code else { return .reconnect }
        switch code {
        case .accessRefused, .notAllowed, .preconditionFailed, .notImplemented: return .configuration
        default: return .reconnect
        }
    }

    /// The longest wait between tries after a configuration error at run time.
    public static let configurationBackoffCap = BrokerFailure.configurationBackoffCap
}

extension AMQPError: BrokerFailing {
    /// The seams' decision: a timeout as such, else the disposition.
    public var brokerFailure: BrokerFailure {
        if kind == .timeout { return .timeout }
        return disposition == .configuration ? .configuration : .reconnect
    }
}
