import BatonSeams

/// What the loop does with the store's notifications (PostgreSQL's NOTIFY), as a value: a new run
/// is started only behind the fence (this coordinator holds its partition; another starts the
/// others); requests are taken and grants told once for all the notifications read.
struct NotificationIntake: Equatable, Sendable {
    /// New runs to start, in the order they were announced.
    var start: [String] = []
    /// Users asked something of a run: take the open requests.
    var requests = false
    /// Holds were granted: tell this coordinator's nodes of theirs.
    var grants = false
    /// Something was paused or resumed: read what is paused again.
    var pauses = false
}

extension NotificationIntake {
    /// The work in `notes`; with no `fence` (a store without partitions) every run is this coordinator's.
    init(_ notes: [StoreNotification], fence: PartitionFence?) {
        for note in notes {
            switch note {
            case let .newRun(id): if Self.holds(id, fence: fence) { start.append(id) }
            case .newRequest: requests = true
            case .grants: grants = true
            case .pauses: pauses = true
            }
        }
    }

    /// Whether run `id` is behind `fence` (nil: no partitions, every run is).
    static func holds(_ id: String, fence: PartitionFence?) -> Bool { fence?.holds(id) ?? true }
}
