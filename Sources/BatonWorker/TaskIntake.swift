import Baton
import Foundation

/// The worker consumer's decisions, as a value: what to do with each task delivery and
/// control message, and when a draining worker stops. It does no I/O; `TaskConsumer`
/// carries out what it returns.
struct TaskIntake: Sendable {
    /// What to do with one task delivery.
    enum Decision: Equatable, Sendable {
        /// Run it.
        case run(TaskDispatch)
        /// It was cancelled before it arrived: report that (and ack with the report) instead of running it.
        case reportCancelled(TaskDispatch)
        /// A newer attempt of the same node has been seen: its result would be ignored, so ack and drop it.
        case dropSuperseded(TaskDispatch)
        /// Delivered before without a result (its worker may have died of it): publish it again
        /// with `deliveries` in the header, then ack this copy.
        case republish(TaskDispatch, deliveries: Int)
        /// Delivered more often than the limit without a result: reject it to the dead-letter exchange.
        case deadLetter(TaskDispatch, deliveries: Int)
        /// Not a task this worker can read: reject it to the dead-letter exchange.
        case rejectMalformed(reason: String)
        /// The worker is draining: give it back to the queue.
        case handBack
    }

    /// What to do once draining began.
    enum DrainStep: Equatable, Sendable {
        case keepGoing
        /// Everything taken was reported and acked: close.
        case stop
        /// The grace period is over: close, handing back what still runs (its reports are dropped).
        case abandon
    }

    let deliveryLimit: Int
    private(set) var drainDeadline: Date?
    /// Attempts cancelled before they reached this worker.
    private var cancelled = RecentSet<AttemptID>(capacity: 10_000)
    /// The newest attempt seen per node, to drop superseded copies (bounded: cleared when large).
    private var newest: [NodeID: Int] = [:]
    static let newestCapacity = 50_000

    struct NodeID: Hashable, Sendable {
        let runID: String
        let key: String
    }

    init(deliveryLimit: Int) { self.deliveryLimit = max(1, deliveryLimit) }

    var isDraining: Bool { drainDeadline != nil }

    /// Decides about a task delivery. `deliveries` is the count from the deliveries header (absent: 1);
    /// with `countedByBroker`, the queue's own count of this delivery (a quorum queue's), which needs
    /// no republishing.
    mutating func delivery(body: [UInt8], redelivered: Bool, deliveries: Int?, countedByBroker: Bool = false) -> Decision {
        if isDraining { return .handBack }
        let task: TaskDispatch
        do { task = try TaskDispatch(decoding: body) } catch { return .rejectMalformed(reason: "\(error)") }
        let node = NodeID(runID: task.runID, key: task.key)
        if let seen = newest[node], seen > task.attempt { return .dropSuperseded(task) }
        if newest.count >= Self.newestCapacity { newest = [:] }
        newest[node] = task.attempt
        if cancelled.contains(AttemptID(task)) { return .reportCancelled(task) }
        if countedByBroker, let count = deliveries, count > 1 {
            return count > deliveryLimit ? .deadLetter(task, deliveries: count - 1) : .run(task)
        }
        if redelivered {
            let count = (deliveries ?? 1) + 1
            return count > deliveryLimit ? .deadLetter(task, deliveries: count - 1) : .republish(task, deliveries: count)
        }
        return .run(task)
    }

    /// Takes a cancel signal; returns the attempts to cancel if they run here (the others are
    /// remembered, so they are not run if they arrive later).
    mutating func control(_ message: ControlMessage, running: Set<AttemptID>) -> [AttemptID] {
        var toCancel: [AttemptID] = []
        for ref in message.attempts {
            let id = AttemptID(runID: message.runID, key: ref.key, attempt: ref.attempt)
            if running.contains(id) { toCancel.append(id) } else { cancelled.insert(id) }
        }
        return toCancel
    }

    /// Starts draining: no more tasks are taken; those running get `grace` seconds.
    mutating func startDraining(now: Date, grace: Double) {
        if drainDeadline == nil { drainDeadline = now.addingTimeInterval(grace) }
    }

    /// What a draining worker does next.
    func drainStep(now: Date, idle: Bool) -> DrainStep {
        guard let drainDeadline else { return .keepGoing }
        if idle { return .stop }
        return now >= drainDeadline ? .abandon : .keepGoing
    }
}
