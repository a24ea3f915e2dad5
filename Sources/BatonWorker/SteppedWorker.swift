import Baton
import Foundation

/// A worker process driven one turn at a time by a caller of its own, on the caller's clock: the
/// cluster simulator runs the real consumer and publisher this way, with in-memory twins behind
/// the broker seams and an `AttemptExecutor` of its own. Production runs the same turns on two
/// threads (`Worker`).
public final class SteppedWorker: @unchecked Sendable {
    // Safe: one caller at a time (the simulator is single-threaded).
    private let mailbox: WorkerMailbox
    private let consumer: TaskConsumer
    private let publisher: ReportPublisher
    private let draining = StopSignal()
    private var consumerDone = false

    public init(configuration: WorkerConfiguration) {
        mailbox = WorkerMailbox(budget: configuration.outboxBytes)
        consumer = TaskConsumer(configuration: configuration, mailbox: mailbox)
        publisher = ReportPublisher(
            configuration: configuration, mailbox: mailbox, startedAt: configuration.clock(), holding: { [consumer] in consumer.holding() })
    }

    /// One turn of the consumer (take one message, send due acks); false once it has finished.
    @discardableResult
    public func consumerTurn() -> Bool {
        guard !consumerDone else { return false }
        if !consumer.step(draining: draining, wait: 0) { consumerDone = true }
        return !consumerDone
    }

    /// One turn of the publisher (publish reports and a heartbeat if due, read confirms); false once it has finished.
    @discardableResult
    public func publisherTurn() -> Bool { publisher.turn(until: { self.consumerDone }, confirmWait: 0) }

    /// Starts a graceful stop: no more tasks are taken; what runs finishes and is reported.
    public func drain() { draining.set() }

    /// True once both sides have finished (after `drain`).
    public var isStopped: Bool { consumerDone && publisher.finished }

    /// Attempts running or waiting for their reports to be confirmed.
    public var isIdle: Bool { mailbox.isIdle }

    /// The process dies: both connections close (the broker gives its unacked tasks back);
    /// nothing more is reported.
    public func crash() {
        consumer.crash()
        publisher.crash()
        consumerDone = true
    }
}
