/// Work announced through PostgreSQL's NOTIFY.
public enum StoreNotification: Sendable, Equatable {
    /// A run was submitted (its id).
    case newRun(String)
    /// A user asked something of a run (cancel, retry).
    case newRequest(runID: String)
    /// Holds were granted (`Store.grantWaiting`): their runs' owners tell their nodes.
    case grants
    /// Something was paused or resumed (`baton pause`, `baton resume`): read `baton.pauses` again.
    case pauses
}
