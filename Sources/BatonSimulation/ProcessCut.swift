import Foundation

/// One process cut off from the store alone or from the broker alone (`FaultKind.storeCut`,
/// `.brokerCut`): it stays up and keeps its other link, until the network heals at `until` on the
/// virtual clock. A restart does not heal it (the cut is the host's network, not the process), so it
/// names the process by its slot (`coordinator-1`), every generation of it.
struct ProcessCut {
    enum Link: String {
        case store = "the store"
        case broker = "the broker"
    }

    let link: Link
    /// `coordinator-1` or `worker-2`.
    let process: String
    /// The coordinator's index, for a coordinator.
    let coordinator: Int?
    let began: Date
    var until: Date
    /// For a cut from the broker: when the broker notices the connections are gone (its heartbeat
    /// times out); until then it holds their unacked deliveries.
    let noticeAt: Date
    var noticed = false
    /// For a coordinator cut from the store: the partitions it held when cut off, as the store saw it.
    let held: [Int]
    /// Faults of the kinds that can hinder a coordinator (`ClusterSimulation.hinderingKinds`) struck by
    /// its start, itself included: a later one excuses a slow takeover or take-back, as does a step where
    /// no other coordinator could take over.
    let faultsBefore: Int
    /// A step of its watch saw another fault or no able coordinator: the liveness checks do not apply.
    var excused = false
    /// Whether the takeover of `held` was checked.
    var takeoverChecked = false
    /// When the network healed (then the take-back is watched), and the faults struck by then.
    var healed: Date?
    var faultsAtHeal = 0
    /// Calls failed by the store's scheduled faults (`MemoryStore.faultsMet`) by then.
    var faultsMetAtHeal = 0

    /// The prefix of the names of the process's store owner (`coordinator-1.3`) and broker handles.
    var prefix: String { process + "." }

    /// A coordinator cut from the store has lost its partitions this long after the cut began: the
    /// partition lease (it cannot renew), and the store's clock rounding.
    static func lossDeadline(lease: Double) -> Double { lease + 0.001 }

    /// Another coordinator holds the partitions of one cut from the store this long after the cut
    /// began: the lease, then a few of the standby's polls (`pollInterval` 2 s in the simulator).
    static func takeoverDeadline(lease: Double) -> Double { lease + 10 }

    /// A coordinator healed holds a partition again this long after: its reconnect back-off (at most
    /// 5 s), a lease for the others to see it and hand over, and a few polls.
    static func takeBackDeadline(lease: Double) -> Double { 5 + lease + 10 }
}
