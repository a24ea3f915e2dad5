import Baton
import Foundation

/// Something that happened in a test run, at its virtual time: a node's change of state
/// (`kind` is the status or the event, such as `retrying`), a progress or log event,
/// a dispatch, or the run's status (`run_succeeded`, ...).
public struct TestEvent: Sendable {
    public let at: Date
    /// The node, or nil for the run's own status.
    public let node: String?
    public let kind: String
    /// The node change, for state changes.
    public var change: NodeChange?
    /// The event's detail (the input for a dispatch, the error for a failed run).
    public var detail: JSON?

    init(at: Date, node: String?, kind: String, change: NodeChange? = nil, detail: JSON? = nil) {
        self.at = at
        self.node = node
        self.kind = kind
        self.change = change
        self.detail = detail
    }
}
