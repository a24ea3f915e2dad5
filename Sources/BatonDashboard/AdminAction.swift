import Baton

/// An admin action on a run (cancel, retry) and whether the run's status allows it.
public enum AdminAction: String, Sendable, CaseIterable {
    case cancel, retry

    /// Nil if `status` allows the action, else the refusal (409).
    public func refusal(runID: String, status: RunStatus) -> DashboardError? {
        switch self {
        case .cancel where status.isTerminal:
            return DashboardError(status: 409, "run \(runID) already ended (\(status.rawValue)); nothing to cancel")
        case .retry where status != .failed && status != .cancelled:
            return DashboardError(status: 409, "run \(runID) is \(status.rawValue); only a failed or cancelled run can be retried")
        default:
            return nil
        }
    }

    /// The actions a run in `status` offers.
    public static func available(for status: RunStatus) -> [AdminAction] {
        allCases.filter { $0.refusal(runID: "", status: status) == nil }
    }
}
