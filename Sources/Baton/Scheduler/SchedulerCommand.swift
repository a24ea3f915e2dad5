import Foundation

/// What the scheduler asks its shell to do. Persisting commands are written in
/// one transaction; dispatches and cancel signals are sent only after that commits.
public enum SchedulerCommand: Sendable {
    /// The run's status changed (with the reason when it failed or was cancelled).
    case runStatus(RunStatus, error: String?)
    /// A node changed state; the store writes the row and an event for it.
    case node(NodeChange)
    /// Send a task to a worker of the node's pool.
    case dispatch(TaskDispatch)
    /// Tell workers to stop these attempts (the node was cancelled or timed out).
    case cancelTasks(runID: String, attempts: [TaskRef])
    /// An event that is not a state change (progress, log lines).
    case event(key: String, kind: String, detail: JSON)
    /// A group, map or spawning node started its children: store them (pending, from `position` on,
    /// in graph order) and the fragment on the parent's row, in place of any children it had before.
    /// A `.node` change of the parent comes first in the same list.
    case expand(parent: String, fragment: GroupSpec, position: Int)
    /// The node runs again from scratch: its children are gone (a `.node` change of it comes first).
    case prune(parent: String)
}
