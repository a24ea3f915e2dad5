import CAMQPShim
import CRabbitMQ

/// Turning librabbitmq results into `AMQPError`s and the connection's state
/// into what the broker now believes. Callers hold the lock.
extension AMQPConnection {
    /// The live connection state, or the error for using a closed connection.
    func requireState(_ operation: String) throws -> amqp_connection_state_t {
        guard let state else {
            throw AMQPError(.connectionLost, "the connection is closed", operation: operation)
        }
        return state
    }

    /// The live connection state, if `channel` is open.
    func requireChannel(_ channel: UInt16, _ operation: String) throws -> amqp_connection_state_t {
        let state = try requireState(operation)
        guard openChannels.contains(channel) else {
            var detail = "call openChannel(\(channel)) first"
            if let closed = channelErrors[channel] {
                let code = closed.replyCode.map { "\($0) " } ?? ""
                detail =
                    "the broker closed it during \(closed.operation ?? "an earlier call") (\(code)\(closed.detail)); "
                    + detail
            }
            throw AMQPError(.channelNotOpen, detail, operation: operation, channel: channel)
        }
        return state
    }

    /// Makes an RPC and copies its reply method; throws on any failure.
    func rpc<Reply>(
        _ operation: String, channel: UInt16,
        _ call: (amqp_connection_state_t, UnsafeMutablePointer<amqp_pool_t>) -> UnsafeMutablePointer<Reply>?
    ) throws -> Reply {
        let state = try requireChannel(channel, operation)
        amqp_maybe_release_buffers(state)
        let result = withScratch { call(state, $0) }
        let reply = amqp_get_rpc_reply(state)
        guard reply.reply_type == AMQP_RESPONSE_NORMAL, let result else {
            throw failure(reply, operation: operation, channel: channel)
        }
        return result.pointee
    }

    /// The error for an `amqp_rpc_reply_t` that is not normal, after bringing
    /// the connection's state in line (closing a channel, dropping the connection).
    func failure(_ reply: amqp_rpc_reply_t, operation: String, channel: UInt16) -> AMQPError {
        switch reply.reply_type {
        case AMQP_RESPONSE_SERVER_EXCEPTION:
            return brokerClosed(camqp_method_inspect(reply.reply, channel), operation: operation)
        case AMQP_RESPONSE_LIBRARY_EXCEPTION:
            return lost(status: reply.library_error, operation: operation)
        default:
            return lost(detail: "librabbitmq returned no reply", operation: operation)
        }
    }

    /// Answers a broker's channel.close or connection.close and returns its error.
    func brokerClosed(_ info: camqp_frame_info, operation: String) -> AMQPError {
        let text = FieldTable.string(info.reply_text)
        switch info.kind {
        case .channel_close:
            if let state { _ = camqp_send_channel_close_ok(state, info.channel) }
            forget(channel: info.channel)
            let error = AMQPError(
                .channelClosed, text, operation: operation, channel: info.channel, replyCode: info.reply_code)
            channelErrors[info.channel] = error
            return error
        case .connection_close:
            if let state { _ = camqp_send_connection_close_ok(state) }
            teardown()
            return AMQPError(.connectionLost, text, operation: operation, replyCode: info.reply_code)
        default:
            return lost(detail: "unexpected method from the broker", operation: operation)
        }
    }

    /// Drops the connection after a library error and returns the error.
    func lost(status: Int32, operation: String) -> AMQPError {
        lost(detail: Self.describe(status: status), operation: operation)
    }

    /// Drops the connection and returns the error.
    func lost(detail: String, operation: String) -> AMQPError {
        teardown()
        return AMQPError(.connectionLost, detail, operation: operation)
    }

    /// Forgets everything tied to a channel the broker closed.
    func forget(channel: UInt16) {
        openChannels.remove(channel)
        confirms[channel] = nil
        buffered.removeAll { $0.channel == channel }
    }

    /// Destroys the connection state; the object stays, closed.
    func teardown() {
        if let state { amqp_destroy_connection(state) }
        state = nil
        openChannels = []
        confirms = [:]
        buffered = []
    }
}
