import CRabbitMQ
import Foundation

/// Consuming: prefetch, consumers, deliveries and acknowledgements.
extension AMQPConnection {
    /// Limits how many unacknowledged deliveries the broker sends to each consumer on `channel`,
    /// or with `shared` to all consumers of the channel together (RabbitMQ's global qos).
    public func setPrefetch(_ count: UInt16, shared: Bool = false, channel: UInt16 = 1) throws {
        try locked {
            _ = try rpc("basic.qos \(count)", channel: channel) { state, _ in
                amqp_basic_qos(state, channel, 0, count, shared ? 1 : 0)
            }
        }
    }

    /// Starts a consumer on `queue` and returns its broker-chosen consumer tag.
    /// Deliveries then arrive through ``nextDelivery(timeout:)``.
    @discardableResult
    public func consume(
        queue: String, noAck: Bool = false, exclusive: Bool = false, arguments: [String: AMQPFieldValue] = [:],
        channel: UInt16 = 1
    ) throws -> String {
        try locked {
            let ok = try rpc("basic.consume '\(queue)'", channel: channel) { state, pool in
                amqp_basic_consume(
                    state, channel, FieldTable.bytes(queue, in: pool), amqp_bytes_t(len: 0, bytes: nil), 0,
                    noAck ? 1 : 0, exclusive ? 1 : 0, FieldTable.encode(arguments, in: pool))
            }
            return FieldTable.string(ok.consumer_tag)
        }
    }

    /// The consumer tags the broker cancelled (`basic.cancel`) since the last call, oldest first;
    /// each was also thrown once by ``nextDelivery(timeout:wakeup:watching:)`` as `.consumerCancelled`.
    public func takeCancelledConsumers() -> [String] {
        locked {
            defer { cancelledConsumers = [] }
            return cancelledConsumers
        }
    }

    /// Stops a consumer. Deliveries already sent to it may still come out of
    /// ``nextDelivery(timeout:)``; acknowledge or reject them as usual.
    public func cancelConsumer(tag: String, channel: UInt16 = 1) throws {
        try locked {
            _ = try rpc("basic.cancel '\(tag)'", channel: channel) { state, pool in
                amqp_basic_cancel(state, channel, FieldTable.bytes(tag, in: pool))
            }
        }
    }

    /// Waits up to `timeout` seconds (`.infinity`: forever) for the next
    /// delivery on any channel; nil if none came, or if `wakeup` was signalled, or if the
    /// socket `watching` (another connection's ``socketDescriptor``) became readable.
    ///
    /// Throws when the broker closes a channel or the connection, or cancels a
    /// consumer (`.consumerCancelled`); confirms and returned messages that
    /// arrive meanwhile are handled and skipped. Over TLS a wake-up is noticed
    /// only when the wait ends (decrypted data may wait inside OpenSSL, where
    /// polling the socket cannot see it): keep `timeout` short there.
    public func nextDelivery(timeout: Double, wakeup: AMQPWakeup? = nil, watching: Int32? = nil) throws -> AMQPDelivery? {
        try locked {
            let operation = "nextDelivery"
            let deadline = Deadline(seconds: timeout)
            var polled = false
            while true {
                if !buffered.isEmpty { return buffered.removeFirst() }
                if !pendingErrors.isEmpty { throw pendingErrors.removeFirst() }
                let state = try requireState(operation)
                if polled && deadline.isExpired { return nil }
                polled = true

                amqp_maybe_release_buffers(state)
                // Sleep until the socket, the wake-up pipe or the watched socket has something.
                if waitForSocket(state, or: wakeup, watched: watching, until: deadline) { return nil }
                var envelope = amqp_envelope_t()
                let reply = deadline.withRemaining { amqp_consume_message(state, &envelope, $0, 0) }
                if reply.reply_type == AMQP_RESPONSE_NORMAL {
                    defer { amqp_destroy_envelope(&envelope) }
                    let fields = DeliverFields(
                        deliveryTag: envelope.delivery_tag, redelivered: envelope.redelivered != 0,
                        exchange: FieldTable.string(envelope.exchange),
                        routingKey: FieldTable.string(envelope.routing_key),
                        consumerTag: FieldTable.string(envelope.consumer_tag))
                    return AMQPDelivery(channel: envelope.channel, method: fields, message: envelope.message)
                }
                guard reply.reply_type == AMQP_RESPONSE_LIBRARY_EXCEPTION else {
                    throw failure(reply, operation: operation, channel: envelope.channel)
                }
                switch reply.library_error {
                case AMQP_STATUS_TIMEOUT.rawValue:
                    return nil
                case AMQP_STATUS_UNEXPECTED_STATE.rawValue:
                    // Something other than basic.deliver came first; librabbitmq put it back.
                    var frame = amqp_frame_t()
                    let status = amqp_simple_wait_frame(state, &frame)
                    guard status == AMQP_STATUS_OK.rawValue else { throw lost(status: status, operation: operation) }
                    try handle(frame, waitingOn: nil, operation: operation)
                default:
                    throw lost(status: reply.library_error, operation: operation)
                }
            }
        }
    }

    /// Acknowledges a delivery (`multiple`: and every earlier one on the channel).
    public func ack(deliveryTag: UInt64, multiple: Bool = false, channel: UInt16 = 1) throws {
        try send("basic.ack \(deliveryTag)", channel: channel) { state in
            amqp_basic_ack(state, channel, deliveryTag, multiple ? 1 : 0)
        }
    }

    /// Rejects a delivery: back to the queue (`requeue`) or dead-lettered/dropped.
    public func reject(deliveryTag: UInt64, requeue: Bool, channel: UInt16 = 1) throws {
        try send("basic.reject \(deliveryTag)", channel: channel) { state in
            amqp_basic_reject(state, channel, deliveryTag, requeue ? 1 : 0)
        }
    }

    /// Negatively acknowledges a delivery (`multiple`: and every earlier one).
    public func nack(deliveryTag: UInt64, multiple: Bool = false, requeue: Bool, channel: UInt16 = 1) throws {
        try send("basic.nack \(deliveryTag)", channel: channel) { state in
            amqp_basic_nack(state, channel, deliveryTag, multiple ? 1 : 0, requeue ? 1 : 0)
        }
    }

    /// Sends a method that has no reply.
    private func send(_ operation: String, channel: UInt16, _ call: (amqp_connection_state_t) -> Int32) throws {
        try locked {
            let state = try requireChannel(channel, operation)
            let status = call(state)
            guard status == AMQP_STATUS_OK.rawValue else { throw lost(status: status, operation: operation) }
        }
    }
}
