import BatonAMQP
import Foundation

/// Hand-over between procedure tasks, the publisher thread and the consumer thread.
final class WorkerMailbox: @unchecked Sendable {
    // Safe: every field is read and written with `condition` locked.
    private let condition = NSCondition()
    private var reports: [OutgoingReport] = []
    private var acks: [DeliveryAck] = []
    private(set) var busy = 0
    /// Reports taken by the publisher and not yet confirmed (or put back).
    private var publishing = 0
    /// Wakes the consumer thread when acks are due.
    let wakeup = AMQPWakeup()

    func post(_ report: OutgoingReport) {
        condition.lock()
        reports.append(report)
        condition.broadcast()
        condition.unlock()
    }

    /// Waits up to `timeout` for reports and takes them all.
    func takeReports(timeout: Double) -> [OutgoingReport] {
        condition.lock(); defer { condition.unlock() }
        if reports.isEmpty { _ = condition.wait(until: Date().addingTimeInterval(timeout)) }
        let taken = reports
        reports = []
        publishing = taken.count
        return taken
    }

    /// Puts reports back (at the front) after a failed publish.
    func putBack(_ items: [OutgoingReport]) {
        condition.lock()
        reports.insert(contentsOf: items, at: 0)
        publishing = 0
        condition.unlock()
    }

    func confirmAcks(_ items: [DeliveryAck]) {
        condition.lock()
        acks.append(contentsOf: items)
        publishing = 0
        condition.unlock()
        if !items.isEmpty { wakeup.signal() }
    }

    func takeAcks() -> [DeliveryAck] {
        condition.lock(); defer { condition.unlock() }
        let taken = acks
        acks = []
        return taken
    }

    func taskStarted() { condition.lock(); busy += 1; condition.unlock() }
    func taskEnded() { condition.lock(); busy -= 1; condition.broadcast(); condition.unlock() }

    /// True when nothing runs and nothing waits to be published or acked.
    var isIdle: Bool {
        condition.lock(); defer { condition.unlock() }
        return busy == 0 && reports.isEmpty && publishing == 0 && acks.isEmpty
    }

    /// True while results are on their way to being acked: over TLS, where `wakeup` cannot
    /// interrupt the wait, the consumer then polls often, because an ack frees a prefetch place.
    var hasAcksComing: Bool {
        condition.lock(); defer { condition.unlock() }
        return !reports.isEmpty || publishing > 0 || !acks.isEmpty
    }

    var busyCount: Int { condition.lock(); defer { condition.unlock() }; return busy }
}
