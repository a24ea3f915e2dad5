import Baton
import Foundation

/// The publisher thread's decisions, as a value: events go in (reports taken from the mailbox,
/// a publish done under its confirm sequence number, confirms read, the connection lost) and
/// the next action comes out. Every report it is given stays in its `ReportPipeline` until the
/// broker confirms it or it is handed back, so a publish that fails partway through a batch
/// loses none. It does no I/O and reads no clock; `ReportPublisher` carries out its actions.
struct PublisherStateMachine: Sendable {
    /// What the publisher does next.
    enum Action: Equatable, Sendable {
        /// Publish this report's body for the coordinator of `partition`, then call `published(sequence:)`.
        case publishReport([UInt8], partition: Int? = nil)
        /// Publish a heartbeat (with the procedure schemas if `withSchemas`), then call `published(sequence:)`.
        case publishHeartbeat(withSchemas: Bool)
        /// Read the confirms that come within a moment, then call `confirmed(through:)`. With
        /// `wakeOnReports`, new reports in the mailbox end the wait early (not while the window is full).
        case readConfirms(wakeOnReports: Bool)
    }

    private var pipeline: ReportPipeline
    let heartbeatInterval: Double
    /// When the last heartbeat went out (nil: none yet on any connection).
    private var lastHeartbeat: Date?
    /// Heartbeats sent so far: the first and every `WorkerHeartbeat.schemasEvery`th carry the schemas.
    private var heartbeatsSent = 0
    /// A heartbeat asked for at this time, whose publish is not done yet.
    private var heartbeatAsked: Date?

    init(window: Int, heartbeatInterval: Double) {
        pipeline = ReportPipeline(window: window)
        self.heartbeatInterval = heartbeatInterval
    }

    /// How many reports to take from the mailbox now.
    var room: Int { pipeline.room }
    /// Every report taken was confirmed (or handed back).
    var isSettled: Bool { pipeline.isEmpty }

    /// Reports were taken from the mailbox: they are the machine's until confirmed or handed back.
    mutating func taken(_ reports: [OutgoingReport]) { pipeline.taken(reports) }

    /// What to do at `now`: publish every report taken, oldest first, then a heartbeat if one is
    /// due, then read confirms.
    mutating func next(now: Date) -> Action {
        if let report = pipeline.next {
            heartbeatAsked = nil
            return .publishReport(report.body, partition: report.partition)
        }
        if lastHeartbeat.map({ now.timeIntervalSince($0) >= heartbeatInterval }) ?? true {
            heartbeatAsked = now
            return .publishHeartbeat(withSchemas: heartbeatsSent % WorkerHeartbeat.schemasEvery == 0)
        }
        return .readConfirms(wakeOnReports: !pipeline.isFull)
    }

    /// The publish that `next(now:)` asked for went out as number `sequence`.
    mutating func published(sequence: UInt64) {
        if let asked = heartbeatAsked {
            pipeline.heartbeatPublished(sequence: sequence)
            lastHeartbeat = asked
            heartbeatsSent += 1
            heartbeatAsked = nil
        } else {
            pipeline.published(sequence: sequence)
        }
    }

    /// The broker settled every publish through `sequence`: returns the reports now safe, oldest
    /// first (their task deliveries may be acked).
    mutating func confirmed(through sequence: UInt64) -> [OutgoingReport] {
        pipeline.confirmed(through: sequence)
    }

    /// A publish failed, the confirms could not be read, the broker refused a publish or the
    /// connection was lost: returns every report taken and not confirmed, oldest first, to put
    /// back in the mailbox for the next connection. A heartbeat asked for and not published is
    /// asked for again there.
    mutating func connectionLost() -> [OutgoingReport] {
        heartbeatAsked = nil
        return pipeline.takeUnconfirmed()
    }
}
