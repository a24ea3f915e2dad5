import Foundation

/// What the coordinator's span of a run starts from: when the run was submitted and, if the
/// submitter traced it, the W3C `traceparent` of its span.
public struct RunTraceContext: Sendable, Equatable {
    public let traceparent: String?
    public let submittedAt: Date

    public init(traceparent: String?, submittedAt: Date) {
        self.traceparent = traceparent
        self.submittedAt = submittedAt
    }
}
