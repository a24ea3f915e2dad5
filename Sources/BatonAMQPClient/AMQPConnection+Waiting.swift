import CRabbitMQ
import Foundation

/// Waiting on the socket beside other things: a wake-up pipe, or another connection's socket.
extension AMQPConnection {
    /// The socket's file descriptor, to poll beside another connection's (nil once closed).
    public var socketDescriptor: Int32? {
        locked { state.map { amqp_get_sockfd($0) } }
    }

    /// Polls the connection's socket, the wake-up pipe and `watched` (another connection's
    /// socket, which is only looked at, never read) until one is readable or `deadline` passes;
    /// true when woken by the pipe or `watched` while the own socket has nothing (the pipe is
    /// emptied). False at once when there is nothing else to watch, over TLS (decrypted data can
    /// wait inside OpenSSL, out of poll's sight), or when librabbitmq has read ahead: then the
    /// caller reads as usual. A timeout returns false, so librabbitmq then gets its turn to send
    /// a heartbeat that is due.
    func waitForSocket(_ state: amqp_connection_state_t, or wakeup: AMQPWakeup?, watched: Int32? = nil, until deadline: Deadline) -> Bool {
        guard wakeup != nil || watched != nil, !url.useTLS, amqp_data_in_buffer(state) == 0, amqp_frames_enqueued(state) == 0 else {
            return false
        }
        var fds = [pollfd(fd: amqp_get_sockfd(state), events: Int16(POLLIN), revents: 0)]
        if let wakeup { fds.append(pollfd(fd: wakeup.readFD, events: Int16(POLLIN), revents: 0)) }
        if let watched { fds.append(pollfd(fd: watched, events: Int16(POLLIN), revents: 0)) }
        let ready = poll(&fds, nfds_t(fds.count), deadline.remainingMilliseconds)
        guard ready > 0 else { return false }
        if let wakeup, fds[1].revents != 0 { wakeup.drain() }
        return fds[0].revents == 0
    }
}
