/// How long the loop waits for the broker's confirms once the backlog is full (`ConfirmBacklog.mustWait`),
/// as a value: in slices of at most a fifth of the partition lease (at least 50 ms, at most 1 s), the
/// partitions renewed between them, so a broker that does not answer holds up the confirms, not the
/// store's duties; after `deadline` seconds in all the timeout is thrown (it reconnects).
struct ConfirmWait: Sendable {
    /// Each wait, in seconds.
    let slice: Double
    private var slicesLeft: Int

    init(partitionLease: Double, deadline: Double) {
        slice = max(0.05, min(1, partitionLease / 5))
        slicesLeft = Int((deadline / slice).rounded(.up))
    }

    /// A slice ran out without the confirms: true to renew and wait again, false to give up.
    mutating func timedOut() -> Bool {
        slicesLeft -= 1
        return slicesLeft > 0
    }
}
