import Foundation

/// What the scheduler asks its shell to do. Persisting commands are written in
/// one transaction; dispatches and cancel signals are sent only after that commits.
/// The large cases are `indirect`, so a list of commands costs about 50 bytes a command
/// rather than 194 (a run that starts 100,000 nodes emits 200,000 of them at once).
public enum SchedulerCommand: Sendable {
    /// The run's status changed (with the reason when it failed or was cancelled).
    case runStatus(RunStatus, error: String?)
    /// A node changed state; the store writes the row and an event for it.
    indirect case node(NodeChange)
    /// Send a task to a worker of the node's pool.
    indirect case dispatch(TaskDispatch)
    /// Tell workers to stop these attempts (the node was cancelled or timed out).
    case cancelTasks(runID: String, attempts: [TaskRef])
    /// An event that is not a state change (progress, log lines).
    case event(key: String, kind: EventKind, detail: JSON)
    /// A group, map or spawning node started its children: store them (pending, from `position` on,
    /// in graph order) and the fragment on the parent's row, in place of any children it had before.
    /// A `.node` change of the parent comes first in the same list.
    indirect case expand(parent: String, fragment: GroupSpec, position: Int)
    /// The node runs again from scratch: its children are gone (a `.node` change of it comes first).
    case prune(parent: String)
    /// Ask to queue a node that needs a mutex, a concurrency slot or a cache lookup; the answer
    /// comes back as `.admitted` or `.cached`. Persisted with the node change (`baton.holds`).
    indirect case acquire(AdmissionRequest)
    /// Give up what the node holds or waits for (it left queued/running, or stopped waiting).
    case release(key: String)
    /// The node succeeded with this output: store it in the cache (`baton.cache`).
    indirect case cacheStore(key: String, lookup: CacheLookup, output: JSON)
}
