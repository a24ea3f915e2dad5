import Baton

/// A message the coordinator publishes after a commit.
enum Publication: Sendable, Equatable {
    /// A task, to the queue of its pool and procedure (persistent, with its priority).
    case task(TaskDispatch)
    /// A cancel signal to every worker.
    case cancel(ControlMessage)
}
