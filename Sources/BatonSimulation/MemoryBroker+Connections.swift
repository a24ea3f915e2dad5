import BatonAMQP
import Foundation

/// What the connection handles do at the broker: open, consume, publish, receive, ack, reject, close.
extension MemoryBroker {
    static func lost(_ operation: String) -> AMQPError {
        AMQPError.simulated(.connectionLost, "connection lost (simulated)", operation: operation)
    }

    /// Opens a connection named `name` for the handle `owner`.
    func open(name: String, owner: String) throws -> MemoryConnection {
        guard !refusesConnections, !cutOff.contains(where: { owner.hasPrefix($0) }) else {
            throw AMQPError.simulated(.connectionFailed, "broker unreachable (simulated)", operation: "connect")
        }
        let connection = MemoryConnection(id: nextConnectionID, name: name, owner: owner)
        nextConnectionID += 1
        connections.append(connection)
        if let index = pendingPublishFailures.firstIndex(where: { connection.answers(to: $0.name) }) {
            let failure = pendingPublishFailures.remove(at: index)
            connection.publishesBeforeFailure = failure.after
            connection.failureKeepsUnconfirmed = failure.keepUnconfirmed
        }
        declareCommon()
        return connection
    }

    /// Throws `.connectionLost` unless `connection` is live.
    func require(_ connection: MemoryConnection?, _ operation: String) throws -> MemoryConnection {
        guard let connection, connection.usable else { throw Self.lost(operation) }
        return connection
    }

    /// Closes `connection` as its client does: publishes already sent still arrive.
    func close(_ connection: MemoryConnection?) {
        guard let connection, !connection.severed else { return }  // a close the broker never hears of
        disconnect(connection, keepUnconfirmed: true)
    }

    /// Consumes `queue` on `channel`, under the channel's prefetch or (`prefetch`) one of its own.
    func consume(_ connection: MemoryConnection, channel: UInt16, queue: String, noAck: Bool = false, prefetch: Int? = nil) {
        guard let target = queuesByName[queue] else { return }
        target.consumers.append(
            MemoryConsumer(connection: connection, channel: connection.channel(channel), queue: queue, noAck: noAck, prefetch: prefetch))
        dispatch()
    }

    func cancelConsumers(_ connection: MemoryConnection, channel: UInt16) {
        for queue in queues {
            queue.consumers.removeAll { $0.connection === connection && $0.channel.number == channel }
            queue.nextConsumer = 0
        }
    }

    /// Declares `connection`'s exclusive control queue, bound to the control exchange, and consumes it without acks.
    func declareControlQueue(_ connection: MemoryConnection, channel: UInt16) {
        let name = "amq.gen-\(connection.id)"
        declareQueue(name, durable: false, owner: connection.id)
        consume(connection, channel: channel, queue: name, noAck: true)
    }

    /// Declares `connection`'s exclusive heartbeat queue, bound to the heartbeats exchange, and consumes it without acks.
    func declareHeartbeatQueue(_ connection: MemoryConnection, channel: UInt16) {
        let name = "amq.gen-heartbeats-\(connection.id)"
        declareQueue(name, durable: false, owner: connection.id)
        heartbeatQueues.insert(name)
        consume(connection, channel: channel, queue: name, noAck: true)
    }

    /// Publishes on `channel`: in flight until the simulator (or `waitForConfirms`) lets it arrive.
    /// Returns its sequence number. An injected failure drops the connection instead.
    func publish(
        _ connection: MemoryConnection, channel number: UInt16, exchange: String, routingKey: String, body: [UInt8], persistent: Bool,
        priority: UInt8? = nil, deliveries: Int? = nil, queuedAt: Date? = nil, deathQueue: String? = nil, mandatory: Bool = false
    ) throws -> UInt64 {
        let operation = "basic.publish '\(exchange)' '\(routingKey)'"
        _ = try require(connection, operation)
        if let left = connection.publishesBeforeFailure {
            if left == 0 {
                connection.publishesBeforeFailure = nil
                disconnect(connection, keepUnconfirmed: connection.failureKeepsUnconfirmed)
                throw Self.lost(operation)
            }
            connection.publishesBeforeFailure = left - 1
        }
        let channel = connection.channel(number)
        channel.published += 1
        var message = MemoryMessage(
            id: nextMessageID, publisher: connection.name, exchange: exchange, routingKey: routingKey, body: body, persistent: persistent,
            priority: priority, deliveries: deliveries, queuedAt: queuedAt, redelivered: false, deathQueue: deathQueue)
        message.mandatory = mandatory
        nextMessageID += 1
        channel.inFlight.append(MemoryChannel.InFlight(sequence: channel.published, message: message))
        channel.awaitingConfirm.append(message)
        return channel.published
    }

    func confirmed(_ connection: MemoryConnection?, channel: UInt16) throws -> UInt64 {
        try require(connection, "confirm.select").channel(channel).confirmedThrough
    }

    /// The process waits for its confirms: everything it published on `channel` arrives and is confirmed.
    func waitForConfirms(_ connection: MemoryConnection?, channel: UInt16) throws {
        let held = try require(connection, "wait for confirms").channel(channel)
        if let reason = blocksPublishers, held.confirmedThrough < held.published {
            throw AMQPError.simulated(.timeout, "publishes still unconfirmed: the broker blocks publishers (\(reason))", operation: "waitForConfirms")
        }
        confirm(held)
        dispatch()
    }

    /// The next message sent to `connection`, without waiting.
    func receive(_ connection: MemoryConnection?) throws -> MemoryConnection.Inbound? {
        let connection = try require(connection, "basic.consume")
        guard !connection.inbox.isEmpty else { return nil }
        return connection.inbox.removeFirst()
    }

    /// Acks `tag` (and with `multiple` every earlier one) on `channel`.
    func ack(_ connection: MemoryConnection?, channel number: UInt16, tag: UInt64, multiple: Bool) throws {
        let connection = try require(connection, "basic.ack")
        let channel = connection.channel(number)
        guard let index = channel.unacked.firstIndex(where: { $0.tag == tag }) else {
            throw unknownTag(tag, connection: connection, channel: number, operation: "basic.ack")
        }
        let done = multiple ? Array(channel.unacked[...index]) : [channel.unacked[index]]
        if multiple { channel.unacked.removeSubrange(...index) } else { channel.unacked.remove(at: index) }
        for delivery in done {
            if let queue = queuesByName[delivery.queue] { settle(delivery.message.id, in: queue) }
            let ack = MemoryAck(connection: connection.name, queue: delivery.queue, tag: delivery.tag, message: delivery.message)
            acks.append(ack)
            onAck?(ack)
        }
        dispatch()
    }

    /// Rejects `tag` on `channel`: back to its place in its queue, or dead-lettered.
    func reject(_ connection: MemoryConnection?, channel number: UInt16, tag: UInt64, requeue: Bool) throws {
        let connection = try require(connection, "basic.reject")
        let channel = connection.channel(number)
        guard let index = channel.unacked.firstIndex(where: { $0.tag == tag }) else {
            throw unknownTag(tag, connection: connection, channel: number, operation: "basic.reject")
        }
        let delivery = channel.unacked.remove(at: index)
        if requeue {
            self.requeue(delivery)
        } else {
            if let queue = queuesByName[delivery.queue] { settle(delivery.message.id, in: queue) }
            deadLetter(delivery.message, from: delivery.queue)
        }
        dispatch()
    }

    /// RabbitMQ closes the channel on an unknown delivery tag; the twin records it and closes the connection.
    private func unknownTag(_ tag: UInt64, connection: MemoryConnection, channel: UInt16, operation: String) -> AMQPError {
        protocolErrors.append("\(connection.name): \(operation) of unknown delivery tag \(tag) on channel \(channel)")
        disconnect(connection, keepUnconfirmed: true)
        return AMQPError.simulated(
            .channelClosed, "PRECONDITION_FAILED - unknown delivery tag \(tag)", operation: operation, channel: channel, replyCode: 406)
    }

    /// The ready messages of the task queues of `procedure` in `pool`, every band (declared if
    /// missing, as `taskQueueDepth` does).
    func depth(pool: String, procedure: String, queueType: QueueType = .classic) -> Int {
        declareTaskQueues(pool: pool, procedure: procedure, queueType: queueType).reduce(0) { $0 + (queuesByName[$1]?.ready.count ?? 0) }
    }
}
