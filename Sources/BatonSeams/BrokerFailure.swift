/// What a caller of a broker seam does about an error, decided by the adapter (`AMQPError` maps
/// RabbitMQ's reply codes to it) so that nothing outside the adapters looks at AMQP's codes.
public enum BrokerFailure: String, Sendable, Equatable {
    /// The connection is gone (a lost socket, a missed heartbeat, a forced close, a refused publish):
    /// connect again, with back-off, and go on.
    case reconnect
    /// The broker refuses what is configured (a wrong password, a missing vhost, a declare that
    /// disagrees with what exists): fatal at start-up with one line; at run time retried with a
    /// back-off capped at `configurationBackoffCap`.
    case configuration
    /// A wait (for confirms) passed its deadline: the publishes stay outstanding and waiting again is
    /// fine; given up on, it is a `reconnect`.
    case timeout

    /// The decision for `error`, nil when no broker seam raised it.
    public init?(_ error: Error) {
        guard let error = error as? any BrokerFailing else { return nil }
        self = error.brokerFailure
    }

    /// The longest wait between tries after a configuration error at run time.
    public static let configurationBackoffCap = 30.0
}

/// An error a broker seam raises, which says what its caller does about it.
public protocol BrokerFailing: Error {
    var brokerFailure: BrokerFailure { get }
}
