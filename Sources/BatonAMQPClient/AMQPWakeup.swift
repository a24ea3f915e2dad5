import Foundation

/// Wakes a thread waiting in ``AMQPConnection/nextDelivery(timeout:wakeup:)`` from
/// another thread: a non-blocking pipe whose read end is polled beside the socket.
/// `signal()` may be called from any thread, any number of times; signals that
/// arrive while nobody waits are kept until the next wait. BatonAMQP makes it the seams' `BrokerWakeup`.
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
