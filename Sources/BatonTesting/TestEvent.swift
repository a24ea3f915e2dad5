import Baton
import Foundation

/// Something that happened in a test run, at its virtual time, named as a cluster names it in
/// `baton.events` (`NodeChange.eventKind`): a node's change of state (`queued`, `started`,
/// `succeeded`, `failed`, `retrying`, `timed_out`, `skipped`, `cancelled`, ...), a progress or
/// log event, or the run's status (`run_running`, `run_succeeded`, ...). Two kinds are the test
/// kit's own: `dispatched` (the task sent, with its input as `detail`) and `expanded` / `pruned`
/// (a map or spawn adding or removing children).
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
