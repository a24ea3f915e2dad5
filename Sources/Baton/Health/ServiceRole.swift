/// A service's role as its readiness endpoint reports it.
public enum ServiceRole: String, Sendable {
    /// Connecting (or reconnecting): not ready.
    case starting
    /// The coordinator that writes run state: ready.
    case leader
    /// A coordinator waiting for the leadership lock, connected to PostgreSQL: ready (it takes over when the leader goes).
    case standby
    /// A worker taking tasks: ready.
    case serving
    /// A worker finishing its tasks before it stops: live, not ready.
    case draining

    /// True for the roles in which the service does (or stands by to do) its work.
    public var isReady: Bool { self == .leader || self == .standby || self == .serving }
}
