/// Wakes a thread waiting in a broker seam's `receive` or `confirmed` from another thread. `signal()`
/// may be called from any thread, any number of times; a signal that arrives while nobody waits is
/// kept until the next wait. Each adapter makes its own (`AMQPWakeup` for RabbitMQ) and is woken
/// only by those: a broker given another kind waits its whole timeout.
public protocol BrokerWakeup: AnyObject, Sendable {
    /// Wakes the waiter (or the next one).
    func signal()
}
