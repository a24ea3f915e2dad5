import CRabbitMQ

/// Channels, exchanges, queues and bindings.
extension AMQPConnection {
    /// Opens `channel` (a no-op if it is open). Reopens a channel the broker closed.
    public func openChannel(_ channel: UInt16) throws {
        let operation = "channel.open \(channel)"
        guard channel != 0 else {
            throw AMQPError(.invalidArgument, "channel 0 is reserved for the connection", operation: operation)
        }
        try locked {
            _ = try requireState(operation)
            guard !openChannels.contains(channel) else { return }
            openChannels.insert(channel)
            channelErrors[channel] = nil
            do {
                _ = try rpc(operation, channel: channel) { state, _ in amqp_channel_open(state, channel) }
            } catch {
                openChannels.remove(channel)
                throw error
            }
        }
    }

    /// Declares an exchange (`passive`: only check that it exists).
    public func declareExchange(
        name: String, type: String = "direct", durable: Bool = true, autoDelete: Bool = false,
        passive: Bool = false, arguments: [String: AMQPFieldValue] = [:], channel: UInt16 = 1
    ) throws {
        try locked {
            _ = try rpc("exchange.declare '\(name)'", channel: channel) { state, pool in
                amqp_exchange_declare(
                    state, channel, FieldTable.bytes(name, in: pool), FieldTable.bytes(type, in: pool),
                    passive ? 1 : 0, durable ? 1 : 0, autoDelete ? 1 : 0, 0,
                    FieldTable.encode(arguments, in: pool))
            }
        }
    }

    /// Deletes an exchange.
    public func deleteExchange(name: String, ifUnused: Bool = false, channel: UInt16 = 1) throws {
        try locked {
            _ = try rpc("exchange.delete '\(name)'", channel: channel) { state, pool in
                amqp_exchange_delete(state, channel, FieldTable.bytes(name, in: pool), ifUnused ? 1 : 0)
            }
        }
    }

    /// Declares a queue (`passive`: only check that it exists; an empty name
    /// asks the broker to choose one) and returns its name and counts.
    ///
    /// `arguments` carries `x-dead-letter-exchange`, `x-message-ttl`,
    /// `x-max-priority`, `x-queue-type`, `x-delivery-limit` and the like.
    @discardableResult
    public func declareQueue(
        name: String, durable: Bool = true, exclusive: Bool = false, autoDelete: Bool = false,
        passive: Bool = false, arguments: [String: AMQPFieldValue] = [:], channel: UInt16 = 1
    ) throws -> (name: String, messageCount: UInt32, consumerCount: UInt32) {
        try locked {
            let ok = try rpc("queue.declare '\(name)'", channel: channel) { state, pool in
                amqp_queue_declare(
                    state, channel, FieldTable.bytes(name, in: pool), passive ? 1 : 0, durable ? 1 : 0,
                    exclusive ? 1 : 0, autoDelete ? 1 : 0, FieldTable.encode(arguments, in: pool))
            }
            return (FieldTable.string(ok.queue), ok.message_count, ok.consumer_count)
        }
    }

    /// Binds a queue to an exchange.
    public func bindQueue(
        queue: String, exchange: String, routingKey: String, arguments: [String: AMQPFieldValue] = [:],
        channel: UInt16 = 1
    ) throws {
        try locked {
            _ = try rpc("queue.bind '\(queue)' to '\(exchange)'", channel: channel) { state, pool in
                amqp_queue_bind(
                    state, channel, FieldTable.bytes(queue, in: pool), FieldTable.bytes(exchange, in: pool),
                    FieldTable.bytes(routingKey, in: pool), FieldTable.encode(arguments, in: pool))
            }
        }
    }

    /// Binds exchange `destination` to exchange `source`: what `source` routes with `routingKey`
    /// goes on to `destination` with its own routing key.
    public func bindExchange(
        destination: String, source: String, routingKey: String, arguments: [String: AMQPFieldValue] = [:], channel: UInt16 = 1
    ) throws {
        try locked {
            _ = try rpc("exchange.bind '\(destination)' to '\(source)'", channel: channel) { state, pool in
                amqp_exchange_bind(
                    state, channel, FieldTable.bytes(destination, in: pool), FieldTable.bytes(source, in: pool),
                    FieldTable.bytes(routingKey, in: pool), FieldTable.encode(arguments, in: pool))
            }
        }
    }

    /// Removes every ready message from a queue; returns how many.
    @discardableResult
    public func purgeQueue(name: String, channel: UInt16 = 1) throws -> UInt32 {
        try locked {
            try rpc("queue.purge '\(name)'", channel: channel) { state, pool in
                amqp_queue_purge(state, channel, FieldTable.bytes(name, in: pool))
            }.message_count
        }
    }

    /// Deletes a queue; returns how many messages it held.
    @discardableResult
    public func deleteQueue(
        name: String, ifUnused: Bool = false, ifEmpty: Bool = false, channel: UInt16 = 1
    ) throws
        -> UInt32
    {
        try locked {
            try rpc("queue.delete '\(name)'", channel: channel) { state, pool in
                amqp_queue_delete(state, channel, FieldTable.bytes(name, in: pool), ifUnused ? 1 : 0, ifEmpty ? 1 : 0)
            }.message_count
        }
    }
}
