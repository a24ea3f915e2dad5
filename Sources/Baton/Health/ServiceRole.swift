/// A service's role as its readiness endpoint reports it.
public enum ServiceRole: String, Sendable {
    /// Connecting (or reconnecting): not ready.
    case starting
    /// A coordinator that owns partitions and drives their runs: ready.
    case owning
    /// A coordinator that owns no partition yet, connected to both services: ready (it takes a share
    /// at its next balance, or a stopped one's partitions).
    case standby
    /// A worker taking tasks: ready.
    case serving
    /// A worker finishing its tasks before it stops: live, not ready.
    case draining

    /// True for the roles in which the service does (or stands by to do) its work.
    public var isReady: Bool { self == .owning || self == .standby || self == .serving }
}
