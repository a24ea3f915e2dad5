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
}
