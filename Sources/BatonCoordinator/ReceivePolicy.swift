import Foundation

/// How long the coordinator waits for the next message of a batch: a value, so the batching
/// rule is tested without a broker.
struct ReceivePolicy: Sendable {
    let batchSize: Int
    /// The most bytes of messages in one batch (`CoordinatorConfiguration.batchBytes`): with large
    /// outputs, fewer reports are taken per batch, so what a batch holds stays within the memory budget.
    var batchBytes: Int = .max
    /// The longest wait when there is nothing to do.
    var idleWait: Double = 0.05

    /// Seconds to wait for the next delivery, or nil when the batch is full (`batchSize` messages, or
    /// `batchBytes` bytes of them received) and must be committed.
    /// An empty batch waits (up to the next timer); once something arrived, or decisions are
    /// pending, only what is already there is taken, so a result is never held back.
    func wait(received: Int, bytes: Int = 0, hasPending: Bool, nextWakeUp: Date?, now: Date) -> Double? {
        guard received < batchSize, bytes < batchBytes else { return nil }
        var wait = (received == 0 && !hasPending) ? idleWait : 0
        if let wake = nextWakeUp { wait = min(wait, max(0, wake.timeIntervalSince(now))) }
        return wait
    }
}
