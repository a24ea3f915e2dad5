import CAMQPShim
import CRabbitMQ
import Foundation

/// A blocking connection to an AMQP 0-9-1 broker (RabbitMQ) through librabbitmq.
///
/// Every method blocks the calling thread on network I/O: call them from a
/// thread of your own, not from Swift's cooperative pool. Publishing and
/// consuming normally use separate connections, but mixing them works:
/// deliveries read while waiting for confirms are kept for ``nextDelivery(timeout:)``
/// and confirms read while waiting for deliveries are counted.
///
/// librabbitmq only answers heartbeats while it is inside a call; a connection
/// left idle for longer than twice the heartbeat interval is dropped by the
/// broker. Call ``processIncoming(timeout:)`` now and then on idle connections.
///
/// Sendability: librabbitmq's connection state must never be used by two
/// threads at once. Every access to it, and to the bookkeeping below, happens
/// while holding `lock`, so sharing one instance between threads is memory-safe;
/// callers should still use it from one thread at a time, since calls wait for
/// each other.
public final class AMQPConnection: @unchecked Sendable {
    /// Where this connection goes (its description hides the password).
    public let url: AMQPURL

    let lock = NSLock()
    /// nil once closed or lost.
    var state: amqp_connection_state_t?
    /// Scratch memory for encoding requests; recycled after each call.
    let scratch: UnsafeMutablePointer<amqp_pool_t>
    var openChannels: Set<UInt16> = []
    /// Why a channel was closed by the broker, reported when it is used again.
    var channelErrors: [UInt16: AMQPError] = [:]
    var confirms: [UInt16: ConfirmTracker] = [:]
    /// Deliveries read while doing something else, oldest first.
    var buffered: [AMQPDelivery] = []
    /// Errors to report from the next `nextDelivery` (e.g. consumer cancelled).
    var pendingErrors: [AMQPError] = []
    /// The reason the broker gave in its last `connection.blocked` (nil: not blocked, or unblocked since).
    var blocked: String?
    /// How many times the broker blocked this connection (`connection.blocked` frames read).
    var blocks = 0
    /// Mandatory messages the broker returned unroutable, oldest first (`takeReturned()`).
    var returned: [AMQPReturn] = []
    /// Consumer tags the broker cancelled (`basic.cancel`: their queue was deleted), oldest first.
    var cancelledConsumers: [String] = []

    /// Connects, logs in and opens channel 1.
    ///
    /// - Parameters:
    ///   - url: `amqp://user:pass@host:port/vhost` or `amqps://…`.
    ///   - heartbeatSeconds: heartbeat interval to ask for; 0 disables heartbeats.
    ///   - connectionName: shown in RabbitMQ's management UI.
    ///   - timeoutSeconds: limit for connecting, the handshake and each RPC.
    ///   - caCertificatePath: PEM file to verify an amqps server against
    ///     (default: the system bundle at /etc/ssl/certs/ca-certificates.crt).
    ///   A list of URLs or hosts (`AMQPEndpoints`) is tried in turn, from the one that answered last:
    ///   the first that connects wins; a refused login ends the search (the others would refuse it too).
    public convenience init(
        url: String, heartbeatSeconds: Int = 30, connectionName: String = "baton",
        timeoutSeconds: Double = 10, caCertificatePath: String? = nil
    ) throws {
        let endpoints = try AMQPEndpoints(url)
        var failure = AMQPError(.connectionFailed, "no broker to connect to")  // replaced: a list has one at least
        for index in AMQPEndpointCursor.shared.order(endpoints) {
            do {
                try self.init(
                    url: endpoints.urls[index], heartbeatSeconds: heartbeatSeconds, connectionName: connectionName,
                    timeoutSeconds: timeoutSeconds, caCertificatePath: caCertificatePath)
                AMQPEndpointCursor.shared.answered(index, of: endpoints)
                return
            } catch let error as AMQPError where error.kind == .connectionFailed || error.kind == .connectionLost {
                failure = error
            }
        }
        guard endpoints.urls.count > 1 else { throw failure }
        throw AMQPError(
            failure.kind, failure.detail + "; no broker of the list of \(endpoints.urls.count) answered", operation: failure.operation)
    }

    /// Connects, logs in and opens channel 1.
    public init(
        url: AMQPURL, heartbeatSeconds: Int = 30, connectionName: String = "baton",
        timeoutSeconds: Double = 10, caCertificatePath: String? = nil
    ) throws {
        self.url = url
        self.state = try Self.connect(
            url: url, heartbeatSeconds: heartbeatSeconds, connectionName: connectionName,
            timeoutSeconds: timeoutSeconds, caCertificatePath: caCertificatePath ?? url.caCertificatePath)
        scratch = .allocate(capacity: 1)
        init_amqp_pool(scratch, 4096)
        try openChannel(1)
    }

    deinit {
        close()
        empty_amqp_pool(scratch)
        scratch.deallocate()
    }

    /// False once the connection was closed or lost.
    public var isOpen: Bool { locked { state != nil } }

    /// Why the broker blocks this connection's publishes (`connection.blocked`, e.g. "low on memory"),
    /// or nil if it does not. The broker tells a connection when it first publishes under an alarm, and
    /// the frame is read by the next call that reads (``processIncoming(timeout:)``, a confirm wait).
    public var blockedReason: String? { locked { blocked } }

    /// How many times the broker blocked this connection so far (a block that began and ended between
    /// two looks at ``blockedReason`` still counts).
    public var blockCount: Int { locked { blocks } }

    /// Closes the connection (and with it every channel). Unacknowledged
    /// deliveries go back to their queues. Safe to call more than once.
    public func close() {
        locked {
            guard let state else { return }
            _ = amqp_connection_close(state, AMQP_REPLY_SUCCESS)
            teardown()
        }
    }

    private static func connect(
        url: AMQPURL, heartbeatSeconds: Int, connectionName: String,
        timeoutSeconds: Double, caCertificatePath: String?
    ) throws -> amqp_connection_state_t {
        let operation = "connect to \(url.redacted)"
        guard let state = amqp_new_connection() else {
            throw AMQPError(.connectionFailed, "out of memory", operation: operation)
        }
        var succeeded = false
        defer { if !succeeded { amqp_destroy_connection(state) } }

        let socket: OpaquePointer?
        if url.useTLS {
            socket = amqp_ssl_socket_new(state)
            if let socket {
                let path = caCertificatePath ?? "/etc/ssl/certs/ca-certificates.crt"
                if caCertificatePath != nil || FileManager.default.fileExists(atPath: path) {
                    guard amqp_ssl_socket_set_cacert(socket, path) == AMQP_STATUS_OK.rawValue else {
                        throw AMQPError(.connectionFailed, "cannot load CA certificates from \(path)", operation: operation)
                    }
                }
            }
        } else {
            socket = amqp_tcp_socket_new(state)
        }
        guard let socket else {
            throw AMQPError(.connectionFailed, "cannot create a socket", operation: operation)
        }

        var timeout = Deadline.timeval(seconds: timeoutSeconds)
        let opened = amqp_socket_open_noblock(socket, url.host, Int32(url.port), &timeout)
        guard opened == AMQP_STATUS_OK.rawValue else {
            // librabbitmq keeps the socket's own error to itself: say what to check.
            let detail = Self.describe(status: opened) + " (is a broker listening on \(url.host):\(url.port)?)"
            throw AMQPError(.connectionFailed, detail, operation: operation)
        }
        amqp_set_handshake_timeout(state, &timeout)
        amqp_set_rpc_timeout(state, &timeout)

        let reply = camqp_login_plain(
            state, url.vhost, 0, 131_072, Int32(clamping: heartbeatSeconds),
            url.user, url.password, connectionName)
        switch reply.reply_type {
        case AMQP_RESPONSE_NORMAL:
            succeeded = true
            return state
        case AMQP_RESPONSE_SERVER_EXCEPTION:
            let info = camqp_method_inspect(reply.reply, 0)
            throw AMQPError(
                .loginRefused, FieldTable.string(info.reply_text),
                operation: "log in to \(url.redacted)", replyCode: info.reply_code)
        default:
            var detail = describe(status: reply.library_error)
            // RabbitMQ closes the socket on a refused login (the reason is only in its log).
            if reply.library_error == AMQP_STATUS_CONNECTION_CLOSED.rawValue {
                detail += " (wrong user name, password or vhost?)"
                throw AMQPError(.loginRefused, detail, operation: "log in to \(url.redacted)")
            }
            throw AMQPError(.connectionFailed, detail, operation: "log in to \(url.redacted)")
        }
    }

    /// Runs `body` while holding the lock.
    func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// Runs `body` with scratch memory that is recycled afterwards.
    func withScratch<T>(_ body: (UnsafeMutablePointer<amqp_pool_t>) throws -> T) rethrows -> T {
        defer { recycle_amqp_pool(scratch) }
        return try body(scratch)
    }

    /// librabbitmq's explanation of a status code.
    static func describe(status: Int32) -> String {
        String(cString: amqp_error_string2(status))
    }
}
