/// The start-up check of the coordinator and workers: connect, log in and declare Baton's shared
/// topology once, so that a configuration error (an AMQP URL that cannot be parsed, a wrong
/// password, a missing vhost, a declare that disagrees with what exists) ends the process with one
/// line instead of a reconnect loop. A broker that cannot be reached is not a configuration error:
/// the caller's loop keeps trying it.
public enum BrokerCheck {
    /// Throws the first configuration error (`AMQPError.disposition == .configuration`); passing
    /// errors are returned instead, for the caller to log. The queues are declared as `queueType`
    /// (the coordinator's, from the database), or as the broker is marked (a worker's).
    @discardableResult
    public static func verify(url: String, connectionName: String, queueType: QueueType? = nil) throws -> AMQPError? {
        do {
            let connection = try AMQPConnection(url: url, heartbeatSeconds: 0, connectionName: connectionName)
            defer { connection.close() }
            let type = try queueType ?? BatonTopology.queueType(on: connection)
            try BatonTopology.declareCommon(on: connection, queueType: type)
            return nil
        } catch let error as AMQPError {
            if error.disposition == .configuration { throw error }
            return error
        }
    }
}
