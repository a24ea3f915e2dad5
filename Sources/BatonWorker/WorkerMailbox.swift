import BatonAMQP
import Foundation

/// Hand-over between procedure tasks, the publisher thread and the consumer thread. Its bytes are
/// a budget: log and progress reports are `offer`ed and refused while the reports not yet confirmed
/// hold `budget` bytes or more (the broker takes nothing, or a procedure talks faster than it
/// takes), so the worker's memory does not grow with them. What must go out (a result, a start)
/// is `post`ed and always taken: there is one per slot at most.
final class WorkerMailbox: @unchecked Sendable {
    // Safe: every field is read and written with `condition` locked.
    private let condition = NSCondition()
    private var reports: [OutgoingReport] = []
    /// Bytes of the reports waiting or taken and not yet confirmed.
    private(set) var bytes = 0
    let budget: Int
    /// The default budget of log and progress reports waiting to go out.
    static let defaultBudget = 4 << 20
    private var acks: [DeliveryAck] = []
    private(set) var busy = 0
    /// Reports taken by the publisher and not yet confirmed (or put back).
    private var publishing = 0
    /// Wakes the consumer thread when acks are due.
    let consumerWakeup = AMQPWakeup()
    /// Wakes the publisher thread when reports are posted.
    let publisherWakeup = AMQPWakeup()

    init(budget: Int = WorkerMailbox.defaultBudget) { self.budget = budget }

    /// Posts a report that must go out (a result, a start), whatever the budget.
    func post(_ report: OutgoingReport) { _ = add(report, always: true) }

    /// Posts a report that may be dropped (a log line, progress) if the budget has room for it;
    /// returns false, taking nothing, if not.
    func offer(_ report: OutgoingReport) -> Bool { add(report, always: false) }

    private func add(_ report: OutgoingReport, always: Bool) -> Bool {
        condition.lock()
        guard always || bytes + report.body.count <= budget else {
            condition.unlock()
            return false
        }
        let first = reports.isEmpty
        reports.append(report)
        bytes += report.body.count
        condition.unlock()
        if first { publisherWakeup.signal() }
        return true
    }

    /// Takes up to `limit` reports, oldest first, without waiting.
    func takeReports(limit: Int) -> [OutgoingReport] {
        condition.lock(); defer { condition.unlock() }
        let count = min(limit, reports.count)
        guard count > 0 else { return [] }
        let taken = Array(reports.prefix(count))
        reports.removeFirst(count)
        publishing += taken.count
        return taken
    }

    /// Puts reports taken by `takeReports` back (at the front) after a failed publish, to be taken
    /// again: the publisher puts back every report it took and the broker did not confirm.
    func putBack(_ items: [OutgoingReport]) {
        guard !items.isEmpty else { return }
        condition.lock()
        reports.insert(contentsOf: items, at: 0)
        publishing = max(0, publishing - items.count)
        condition.unlock()
    }

    /// The broker confirmed these reports: their task deliveries are due for an ack.
    func confirmed(_ items: [OutgoingReport]) {
        guard !items.isEmpty else { return }
        condition.lock()
        publishing = max(0, publishing - items.count)
        bytes = max(0, bytes - items.reduce(0) { $0 + $1.body.count })
        let due = items.compactMap(\.ack)
        acks.append(contentsOf: due)
        condition.unlock()
        if !due.isEmpty { consumerWakeup.signal() }
    }

    func takeAcks() -> [DeliveryAck] {
        condition.lock(); defer { condition.unlock() }
        let taken = acks
        acks = []
        return taken
    }

    func taskStarted() { condition.lock(); busy += 1; condition.unlock() }
    func taskEnded() { condition.lock(); busy -= 1; condition.unlock() }

    /// True when nothing runs and nothing waits to be published or acked.
    var isIdle: Bool {
        condition.lock(); defer { condition.unlock() }
        return busy == 0 && reports.isEmpty && publishing == 0 && acks.isEmpty
    }

    /// True when no report waits to be published.
    var hasNoReports: Bool {
        condition.lock(); defer { condition.unlock() }
        return reports.isEmpty
    }

    /// True while results are on their way to being acked: over TLS, where `consumerWakeup` cannot
    /// interrupt the wait, the consumer then polls often, because an ack frees a prefetch place.
    var hasAcksComing: Bool {
        condition.lock(); defer { condition.unlock() }
        return !reports.isEmpty || publishing > 0 || !acks.isEmpty
    }

    var busyCount: Int { condition.lock(); defer { condition.unlock() }; return busy }
}
