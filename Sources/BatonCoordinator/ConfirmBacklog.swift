import BatonAMQP

/// Committed batches whose results wait to be acked until the broker confirmed the tasks
/// published up to them, as a value: the coordinator goes on receiving and committing the
/// next batches meanwhile, instead of blocking on each batch's confirms. Result acks are
/// cumulative (`multiple`), so batches are released strictly in order.
struct ConfirmBacklog: Sendable {
    struct Entry: Sendable, Equatable {
        /// The publisher's sequence number after this batch's publishes (earlier ones included).
        let publishedThrough: UInt64
        /// The last report of the batch, to ack (cumulatively) with it.
        let resultTag: BrokerReceipt?
        /// The commit's batch number, recorded as confirmed once its tasks are.
        let number: Int64?
        /// Whether the batch published anything (only then is its number worth recording).
        let published: Bool
        /// The partitions of the runs whose tasks it published.
        var partitions: Set<Int> = []
    }

    /// What a settle releases: the results to ack and the newest batch whose tasks the broker holds.
    struct Release: Sendable, Equatable {
        var ackThrough: BrokerReceipt?
        var confirmedBatch: Int64?
        /// The partitions whose tasks the released batches published (`confirmedBatch` is recorded for them).
        var confirmedPartitions: Set<Int> = []
    }

    /// The most committed batches to hold before waiting for confirms.
    let limit: Int
    private(set) var entries: [Entry] = []

    init(limit: Int = 64) { self.limit = max(1, limit) }

    var isEmpty: Bool { entries.isEmpty }
    var isFull: Bool { entries.count >= limit }

    /// Whether the loop must wait for confirms before going on, the broker having confirmed through
    /// `sequence`: the backlog is full and its oldest batch is not confirmed yet (the broker is slow).
    func mustWait(confirmedThrough sequence: UInt64) -> Bool {
        isFull && sequence < entries[0].publishedThrough
    }

    /// A batch was committed and its tasks published, up to sequence number `publishedThrough`.
    mutating func committed(publishedThrough: UInt64, resultTag: BrokerReceipt?, number: Int64?, published: Bool, partitions: Set<Int> = []) {
        entries.append(Entry(publishedThrough: publishedThrough, resultTag: resultTag, number: number, published: published, partitions: partitions))
    }

    /// The broker settled every publish through `sequence`: releases the batches it covers, in order.
    mutating func settled(through sequence: UInt64) -> Release {
        var release = Release()
        var count = 0
        for entry in entries {
            guard entry.publishedThrough <= sequence else { break }
            count += 1
            if let tag = entry.resultTag { release.ackThrough = tag }  // entries are in receipt order: the last one covers the rest
            if entry.published, let number = entry.number {
                release.confirmedBatch = max(release.confirmedBatch ?? number, number)
                release.confirmedPartitions.formUnion(entry.partitions)
            }
        }
        entries.removeFirst(count)
        return release
    }

    /// The connections are gone: unacked results come back from the broker, nothing to release.
    mutating func reset() { entries = [] }
}
