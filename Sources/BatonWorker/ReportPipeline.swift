/// The publisher's reports from the moment they are taken from the mailbox until the broker
/// confirms them, as a value: which wait to be published, what was published under which
/// confirm sequence number, which task deliveries the broker's confirms make due for an ack,
/// and what goes back to the mailbox when a publish or the connection fails (every report
/// taken and not confirmed, so none is lost). It does no I/O; `PublisherStateMachine` drives it.
struct ReportPipeline: Sendable {
    /// The most reports to hold (taken and not confirmed) at once.
    let window: Int
    /// Reports taken and not published yet, oldest first, from `nextUnpublished` on.
    private var unpublished: [OutgoingReport] = []
    private var nextUnpublished = 0
    /// Publishes not confirmed yet, oldest first (nil: a heartbeat, nothing to ack or resend).
    private var outstanding: [(sequence: UInt64, report: OutgoingReport?)] = []

    init(window: Int) { self.window = max(1, window) }

    /// Nothing was taken that is not confirmed yet.
    var isEmpty: Bool { outstanding.isEmpty && unpublishedCount == 0 }
    /// As many publishes wait for their confirms as the window allows.
    var isFull: Bool { outstanding.count >= window }
    /// How many reports may be taken now.
    var room: Int { max(0, window - outstanding.count - unpublishedCount) }
    /// The oldest report taken and not published yet.
    var next: OutgoingReport? { nextUnpublished < unpublished.count ? unpublished[nextUnpublished] : nil }

    private var unpublishedCount: Int { unpublished.count - nextUnpublished }

    /// `reports` were taken from the mailbox: from now on the pipeline holds them until they are
    /// confirmed or handed back.
    mutating func taken(_ reports: [OutgoingReport]) {
        unpublished.append(contentsOf: reports)
    }

    /// `next` went out as publish number `sequence`.
    mutating func published(sequence: UInt64) {
        precondition(nextUnpublished < unpublished.count, "published(sequence:) with no report taken")
        outstanding.append((sequence, unpublished[nextUnpublished]))
        nextUnpublished += 1
        if nextUnpublished == unpublished.count {
            unpublished.removeAll(keepingCapacity: true)
            nextUnpublished = 0
        }
    }

    /// A heartbeat went out as publish number `sequence`: nothing to ack or resend, but its confirm
    /// comes in order with the reports'.
    mutating func heartbeatPublished(sequence: UInt64) {
        outstanding.append((sequence, nil))
    }

    /// The broker settled every publish through `sequence`: returns the reports now safe,
    /// oldest first (their task deliveries may be acked).
    mutating func confirmed(through sequence: UInt64) -> [OutgoingReport] {
        let settled = outstanding.prefix { $0.sequence <= sequence }
        guard !settled.isEmpty else { return [] }
        outstanding.removeFirst(settled.count)
        return settled.compactMap(\.report)
    }

    /// A publish failed, the connection was lost or the broker refused a publish: returns every
    /// report taken and not confirmed, published or not, oldest first, to publish again on a new
    /// connection (a report may then arrive twice; the coordinator ignores the second), and
    /// forgets them all.
    mutating func takeUnconfirmed() -> [OutgoingReport] {
        defer {
            outstanding = []
            unpublished = []
            nextUnpublished = 0
        }
        return outstanding.compactMap(\.report) + unpublished[nextUnpublished...]
    }
}
