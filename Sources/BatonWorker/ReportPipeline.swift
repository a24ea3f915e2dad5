/// The publisher's reports in flight, as a value: what was published under which confirm
/// sequence number, which task deliveries the broker's confirms make due for an ack, and
/// what to publish again when the connection fails. It does no I/O; `ReportPublisher`
/// carries out what it returns.
struct ReportPipeline: Sendable {
    /// The most publishes to have unconfirmed at once.
    let window: Int
    /// Publishes not confirmed yet, oldest first (nil: a heartbeat, nothing to ack or resend).
    private var outstanding: [(sequence: UInt64, report: OutgoingReport?)] = []

    init(window: Int) { self.window = max(1, window) }

    /// Nothing waits for a confirm.
    var isEmpty: Bool { outstanding.isEmpty }
    /// As many publishes wait for their confirms as the window allows.
    var isFull: Bool { outstanding.count >= window }
    /// How many reports may be published now.
    var room: Int { max(0, window - outstanding.count) }

    /// `report` (nil: a heartbeat) went out as publish number `sequence`.
    mutating func published(_ report: OutgoingReport?, sequence: UInt64) {
        outstanding.append((sequence, report))
    }

    /// The broker settled every publish through `sequence`: returns the reports now safe,
    /// oldest first (their task deliveries may be acked).
    mutating func confirmed(through sequence: UInt64) -> [OutgoingReport] {
        let settled = outstanding.prefix { $0.sequence <= sequence }
        guard !settled.isEmpty else { return [] }
        outstanding.removeFirst(settled.count)
        return settled.compactMap(\.report)
    }

    /// The connection failed or the broker refused a publish: returns every report not
    /// confirmed, oldest first, to publish again on a new connection (a report may then
    /// arrive twice; the coordinator ignores the second), and forgets them all.
    mutating func takeUnconfirmed() -> [OutgoingReport] {
        defer { outstanding = [] }
        return outstanding.compactMap(\.report)
    }
}
