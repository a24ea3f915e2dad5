import CRabbitMQ
import Foundation

/// Wakes a thread waiting in ``AMQPConnection/nextDelivery(timeout:wakeup:)`` from
/// another thread: a non-blocking pipe whose read end is polled beside the socket.
/// `signal()` may be called from any thread, any number of times; signals that
/// arrive while nobody waits are kept until the next wait.
public final class AMQPWakeup: @unchecked Sendable {
    // Safe: the descriptors never change after init; writing to and reading from a pipe
    // are thread-safe system calls.
    let readFD: Int32
    private let writeFD: Int32

    public init() {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { fatalError("cannot create a pipe: \(String(cString: strerror(errno)))") }
        for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        readFD = fds[0]
        writeFD = fds[1]
    }

    deinit {
        Foundation.close(readFD)
        Foundation.close(writeFD)
    }

    /// Wakes the waiter (or the next one). A full pipe already holds a wake-up, so it is ignored.
    public func signal() {
        var byte: UInt8 = 1
        _ = write(writeFD, &byte, 1)
    }

    /// Empties the pipe: the waiter is awake now.
    func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(readFD, &buffer, buffer.count) > 0 {}
    }
}

extension AMQPConnection {
    /// The socket's file descriptor, to poll beside another connection's (nil once closed).
    public var socketDescriptor: Int32? {
        locked { state.map { amqp_get_sockfd($0) } }
    }

    /// Polls the connection's socket, the wake-up pipe and `watched` (another connection's
    /// socket, which is only looked at, never read) until one is readable or `deadline` passes;
    /// true when woken by the pipe or `watched` while the own socket has nothing (the pipe is
    /// emptied). A timeout returns false, so librabbitmq then gets its turn to send a heartbeat.
    func waitForSocket(_ state: amqp_connection_state_t, or wakeup: AMQPWakeup?, watched: Int32? = nil, until deadline: Deadline) -> Bool {
        var fds = [pollfd(fd: amqp_get_sockfd(state), events: Int16(POLLIN), revents: 0)]
        if let wakeup { fds.append(pollfd(fd: wakeup.readFD, events: Int16(POLLIN), revents: 0)) }
        if let watched { fds.append(pollfd(fd: watched, events: Int16(POLLIN), revents: 0)) }
        let ready = poll(&fds, nfds_t(fds.count), deadline.remainingMilliseconds)
        guard ready > 0 else { return false }
        if let wakeup, fds[1].revents != 0 { wakeup.drain() }
        return fds[0].revents == 0
    }
}
