/// The start-up check of the coordinator and workers: connect, log in and check Baton's shared
/// topology once, so that a configuration error (an AMQP URL that cannot be parsed, a wrong
/// password, a missing vhost, a declare that disagrees with what exists) ends the process with one
/// line instead of a reconnect loop. A broker that cannot be reached, or whose topology `baton
/// migrate` has not declared yet, is not a configuration error: the caller's loop keeps trying it.
public enum BrokerCheck {
    /// Throws the first configuration error (`AMQPError.disposition == .configuration`); passing
    /// errors are returned instead, for the caller to log. A coordinator (`queueType`, from its
    /// database) declares the shared queues as that type if its user may, else checks them; a
    /// worker (nil) declares nothing and only checks that the exchanges it publishes to exist.
    @discardableResult
    public static func verify(url: String, connectionName: String, queueType: QueueType? = nil) throws -> AMQPError? {
        do {
            let connection = try AMQPConnection(url: url, heartbeatSeconds: 0, connectionName: connectionName)
            defer { connection.close() }
            let shared = [BatonTopology.reportsExchange, BatonTopology.heartbeatsExchange, BatonTopology.controlExchange]
            guard let queueType else {
                try BatonTopology.requireDeclared(exchanges: shared, on: connection)
                return nil
            }
            do { try BatonTopology.declareCommon(on: connection, queueType: queueType) } catch let error as AMQPError
                where error.code == .accessRefused
            {
                // A user restricted to `BrokerRole.coordinator`: `baton migrate` declares the topology.
                try connection.openChannel(1)
                try BatonTopology.requireDeclared(exchanges: shared + [BatonTopology.tasksExchange], on: connection)
            }
            return nil
        } catch let error as AMQPError {
            if error.disposition == .configuration { throw error }
            return error
        }
    }
}
