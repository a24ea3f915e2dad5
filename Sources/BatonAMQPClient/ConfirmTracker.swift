/// Publisher-confirm bookkeeping for one channel: which sequence numbers were
/// published and which the broker has settled (acked or nacked), handling the
/// `multiple` flag and out-of-order settlement.
struct ConfirmTracker: Sendable, Equatable {
    /// The sequence number of the last publish (0 before the first).
    private(set) var published: UInt64 = 0
    /// Every sequence number up to and including this one is settled.
    private(set) var settledThrough: UInt64 = 0
    /// Settled sequence numbers above ``settledThrough``.
    private var settledAbove: Set<UInt64> = []
    /// Sequence numbers the broker nacked since the last ``takeNacks()``.
    private(set) var nacked: [UInt64] = []

    /// True when every publish so far has been settled.
    var isComplete: Bool { settledThrough >= published }

    /// How many publishes are still waiting for the broker.
    var outstanding: UInt64 { published - settledThrough - UInt64(settledAbove.count) }

    /// Records a publish and returns its sequence number (1, 2, 3, …).
    mutating func recordPublish() -> UInt64 {
        published += 1
        return published
    }

    /// Records a basic.ack (`ack == true`) or basic.nack from the broker.
    mutating func settle(tag: UInt64, multiple: Bool, ack: Bool) {
        guard tag > settledThrough, tag <= published else { return }
        if multiple {
            if !ack {
                for sequence in (settledThrough + 1)...tag where !settledAbove.contains(sequence) {
                    nacked.append(sequence)
                }
            }
            settledAbove = settledAbove.filter { $0 > tag }
            settledThrough = tag
        } else {
            guard settledAbove.insert(tag).inserted else { return }
            if !ack { nacked.append(tag) }
        }
        while settledAbove.remove(settledThrough + 1) != nil {
            settledThrough += 1
        }
    }

    /// Returns and forgets the nacked sequence numbers.
    mutating func takeNacks() -> [UInt64] {
        defer { nacked = [] }
        return nacked
    }
}
