import CAMQPShim
import CRabbitMQ

/// Frames that arrive while the connection waits for something else:
/// confirms, deliveries, returns, consumer cancellations and closes.
extension AMQPConnection {
    /// Reads whatever the broker sends for up to `timeout` seconds: confirms are
    /// counted, deliveries kept for ``nextDelivery(timeout:)``, and heartbeats
    /// answered. Call it now and then on an otherwise idle connection.
    public func processIncoming(timeout: Double = 0) throws {
        try locked {
            let operation = "processIncoming"
            let deadline = Deadline(seconds: timeout)
            repeat {
                guard try readFrame(deadline, waitingOn: nil, operation: operation) else { return }
            } while !deadline.isExpired
        }
    }

    /// Reads and handles one frame; false when the deadline passed first.
    /// `waitingOn`: a channel.close on another channel is recorded, not thrown.
    func readFrame(_ deadline: Deadline, waitingOn channel: UInt16?, operation: String) throws -> Bool {
        let state = try requireState(operation)
        amqp_maybe_release_buffers(state)
        var frame = amqp_frame_t()
        let status = deadline.withRemaining { amqp_simple_wait_frame_noblock(state, &frame, $0) }
        if status == AMQP_STATUS_TIMEOUT.rawValue { return false }
        guard status == AMQP_STATUS_OK.rawValue else { throw lost(status: status, operation: operation) }
        try handle(frame, waitingOn: channel, operation: operation)
        return true
    }

    /// Acts on a frame that is not the answer to an RPC.
    func handle(_ frame: amqp_frame_t, waitingOn channel: UInt16?, operation: String) throws {
        var frame = frame
        let info = camqp_frame_inspect(&frame)
        switch info.kind {
        case .basic_ack, .basic_nack:
            confirms[info.channel]?.settle(
                tag: info.delivery_tag, multiple: info.multiple != 0, ack: info.kind == .basic_ack)
        case .basic_deliver:
            let fields = DeliverFields(
                deliveryTag: info.delivery_tag, redelivered: info.redelivered != 0,
                exchange: FieldTable.string(info.exchange), routingKey: FieldTable.string(info.routing_key),
                consumerTag: FieldTable.string(info.consumer_tag))
            if let delivery = try readContent(
                info.channel, waitingOn: channel, operation: operation,
                {
                    AMQPDelivery(channel: info.channel, method: fields, message: $0)
                })
            {
                buffered.append(delivery)
            }
        case .basic_return:
            // A mandatory publish no queue took: kept for `takeReturned()`.
            let exchange = FieldTable.string(info.exchange)
            let routingKey = FieldTable.string(info.routing_key)
            if let message = try readContent(
                info.channel, waitingOn: channel, operation: operation,
                { AMQPReturn(channel: info.channel, exchange: exchange, routingKey: routingKey, body: FieldTable.array($0.body)) })
            {
                returned.append(message)
            }
        case .basic_cancel:
            let tag = FieldTable.string(info.consumer_tag)
            cancelledConsumers.append(tag)
            pendingErrors.append(
                AMQPError(
                    .consumerCancelled, "consumer '\(tag)' was cancelled (was its queue deleted?)",
                    channel: info.channel))
        case .channel_close:
            let error = brokerClosed(info, operation: operation)
            if channel == nil || channel == info.channel { throw error }
        case .connection_close:
            throw brokerClosed(info, operation: operation)
        case .connection_blocked:
            let reason = FieldTable.string(info.reply_text)
            blocked = reason.isEmpty ? "blocked" : reason
            blocks += 1
        case .connection_unblocked:
            blocked = nil
        case .other:
            break  // heartbeats are handled inside librabbitmq; nothing else matters here
        }
    }

    /// Reads the header and body that follow a basic.deliver or basic.return.
    /// Returns nil when the broker closed another channel than the one waited on.
    private func readContent<T>(
        _ contentChannel: UInt16, waitingOn channel: UInt16?, operation: String,
        _ convert: (amqp_message_t) -> T
    ) throws -> T? {
        guard let state else { throw lost(detail: "the connection is closed", operation: operation) }
        var message = amqp_message_t()
        let reply = amqp_read_message(state, contentChannel, &message, 0)
        guard reply.reply_type == AMQP_RESPONSE_NORMAL else {
            let error = failure(reply, operation: operation, channel: contentChannel)
            if error.kind == .channelClosed, let channel, channel != contentChannel { return nil }
            throw error
        }
        defer { amqp_destroy_message(&message) }
        return convert(message)
    }
}
