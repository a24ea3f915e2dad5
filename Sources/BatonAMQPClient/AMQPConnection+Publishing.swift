import CRabbitMQ

/// Publishing with publisher confirms.
extension AMQPConnection {
    /// Puts `channel` in confirm mode: the broker then acks (or nacks) every
    /// publish, numbered 1, 2, 3, … on that channel. A no-op if already on.
    public func enableConfirms(channel: UInt16 = 1) throws {
        try locked {
            guard confirms[channel] == nil else { return }
            _ = try rpc("confirm.select", channel: channel) { state, _ in amqp_confirm_select(state, channel) }
            confirms[channel] = ConfirmTracker()
        }
    }

    /// Publishes one message and returns its confirm sequence number (0 when
    /// confirms are not enabled on `channel`). Does not wait for the broker:
    /// call ``waitForConfirms(channel:timeout:)`` once per batch. A `mandatory` message that no
    /// queue takes comes back (``takeReturned()``) before its confirm.
    @discardableResult
    public func publish(
        exchange: String, routingKey: String, body: [UInt8], persistent: Bool = true, priority: UInt8? = nil,
        headers: [String: AMQPFieldValue] = [:], messageID: String? = nil, mandatory: Bool = false, channel: UInt16 = 1
    ) throws -> UInt64 {
        try locked {
            let operation = "basic.publish to '\(exchange)' with routing key '\(routingKey)'"
            let state = try requireChannel(channel, operation)
            let status: Int32 = withScratch { pool in
                var properties = amqp_basic_properties_t()
                var flags = UInt32(AMQP_BASIC_DELIVERY_MODE_FLAG)
                properties.delivery_mode = persistent ? 2 : 1
                if let priority {
                    flags |= UInt32(AMQP_BASIC_PRIORITY_FLAG)
                    properties.priority = priority
                }
                if !headers.isEmpty {
                    flags |= UInt32(AMQP_BASIC_HEADERS_FLAG)
                    properties.headers = FieldTable.encode(headers, in: pool)
                }
                if let messageID {
                    flags |= UInt32(AMQP_BASIC_MESSAGE_ID_FLAG)
                    properties.message_id = FieldTable.bytes(messageID, in: pool)
                }
                properties._flags = flags
                let exchangeBytes = FieldTable.bytes(exchange, in: pool)
                let routingKeyBytes = FieldTable.bytes(routingKey, in: pool)
                return body.withUnsafeBytes { raw in
                    amqp_basic_publish(
                        state, channel, exchangeBytes, routingKeyBytes, mandatory ? 1 : 0, 0, &properties,
                        amqp_bytes_t(len: raw.count, bytes: UnsafeMutableRawPointer(mutating: raw.baseAddress)))
                }
            }
            if status == AMQP_STATUS_TABLE_TOO_BIG.rawValue {
                throw AMQPError(.invalidArgument, "the headers are too big to encode", operation: operation, channel: channel)
            }
            guard status == AMQP_STATUS_OK.rawValue else { throw lost(status: status, operation: operation) }
            return confirms[channel]?.recordPublish() ?? 0
        }
    }

    /// The mandatory messages the broker returned unroutable since the last call, oldest first.
    public func takeReturned() -> [AMQPReturn] {
        locked {
            defer { returned = [] }
            return returned
        }
    }

    /// Blocks until the broker has settled every publish made so far on
    /// `channel`. Throws `.nacked` if it refused any of them (they should be
    /// published again), `.timeout` after `timeout` seconds (the publishes stay
    /// outstanding; waiting again is fine), or the channel or connection error.
    public func waitForConfirms(channel: UInt16 = 1, timeout: Double = 30) throws {
        try locked {
            let operation = "waitForConfirms"
            _ = try requireChannel(channel, operation)
            try requireConfirms(channel, operation)
            let deadline = Deadline(seconds: timeout)
            var polled = false
            while let tracker = confirms[channel], !tracker.isComplete {
                if polled && deadline.isExpired { throw timedOut(tracker, timeout, operation, channel) }
                polled = true
                if try !readFrame(deadline, waitingOn: channel, operation: operation) {
                    throw timedOut(tracker, timeout, operation, channel)
                }
            }
            _ = try takeNacks(channel, operation)
        }
    }

    /// Reads the confirms that have arrived on `channel` without waiting for the rest: waits up
    /// to `timeout` seconds for the socket to have something unless `wakeup` is signalled first,
    /// then takes every frame already there. Returns the sequence number through which every
    /// publish is settled. Throws `.nacked` if the broker refused any publish (publish those
    /// not confirmed yet again), or the channel or connection error.
    public func readConfirms(channel: UInt16 = 1, timeout: Double, wakeup: AMQPWakeup? = nil) throws -> UInt64 {
        try locked {
            let operation = "readConfirms"
            let state = try requireChannel(channel, operation)
            try requireConfirms(channel, operation)
            var wait = Deadline(seconds: timeout)
            if waitForSocket(state, or: wakeup, until: wait) { wait = Deadline(seconds: 0) }
            // The first frame within the wait, then whatever else is already there.
            if try readFrame(wait, waitingOn: channel, operation: operation) {
                while try readFrame(Deadline(seconds: 0), waitingOn: channel, operation: operation) {}
            }
            return try takeNacks(channel, operation).settledThrough
        }
    }

    /// Throws unless confirms are on for `channel`.
    private func requireConfirms(_ channel: UInt16, _ operation: String) throws {
        guard confirms[channel] != nil else {
            throw AMQPError(
                .invalidArgument, "confirms are not enabled: call enableConfirms(channel: \(channel)) first",
                operation: operation, channel: channel)
        }
    }

    /// Forgets the nacks seen on `channel` and throws `.nacked` if there were any; returns its tracker.
    /// Throws the channel's error if it went away while waiting (handle() would have thrown).
    private func takeNacks(_ channel: UInt16, _ operation: String) throws -> ConfirmTracker {
        guard var tracker = confirms[channel] else {
            throw channelErrors[channel] ?? AMQPError(.connectionLost, "the connection is closed", operation: operation)
        }
        let nacks = tracker.takeNacks()
        confirms[channel] = tracker
        if let first = nacks.first {
            throw AMQPError(
                .nacked, "\(nacks.count) publish(es) nacked, the first with sequence number \(first)",
                operation: operation, channel: channel)
        }
        return tracker
    }

    private func timedOut(
        _ tracker: ConfirmTracker, _ timeout: Double, _ operation: String, _ channel: UInt16
    )
        -> AMQPError
    {
        AMQPError(
            .timeout, "\(tracker.outstanding) of \(tracker.published) publishes still unconfirmed after \(timeout) s",
            operation: operation, channel: channel)
    }
}
