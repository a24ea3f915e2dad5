import Baton
import Foundation

/// What the loop does with a grant of a hold to one of its runs' nodes (`CoordinatorLoop.tell`), as a
/// value: give it back when the run is gone, revoke it when it has waited past the slack of its rate
/// tokens untold, else tell the node (a cached output if one appeared, else it is queued).
enum GrantDecision: Equatable, Sendable {
    /// The run ended or does not exist: the hold is released.
    case giveBack
    /// Granted too long ago and never told (its coordinator stopped first): the node would start well
    /// after its tokens were counted, beside those granted since. The grant is revoked if it was made
    /// before `grantedBefore` (not one granted anew meanwhile), and the node waits in line again.
    case revoke(grantedBefore: Date)
    /// Tell the node; the hold is marked told in the same commit.
    case tell
    /// The batch still to be committed releases the node's holds (it was paused, say, after this grant):
    /// the grant is of a row that commit deletes, and telling it would queue the node on a hold it
    /// will not have. Nothing is done; a new request of the node waits for a grant of its own.
    case stale

    /// The decision for `entry` at `now`: `runLoaded` says its run is loaded and unfinished, and
    /// `requested` that its node still waits for the grant (a node told already, its commit still
    /// to come, is told again harmlessly); `releasing` that the batch not yet committed releases the
    /// node's holds.
    static func of(_ entry: AdmissionTable.Entry, runLoaded: Bool, requested: Bool, releasing: Bool = false, now: Date) -> GrantDecision {
        guard runLoaded else { return .giveBack }
        if releasing { return .stale }
        if requested, let grantedAt = entry.grantedAt, let slack = rateSlack(entry), now.timeIntervalSince(grantedAt) > slack {
            return .revoke(grantedBefore: now.addingTimeInterval(-slack))
        }
        return .tell
    }

    /// How late a grant with rate claims may be told: the least slack of its tokens (nil: no rate claim).
    static func rateSlack(_ entry: AdmissionTable.Entry) -> Double? {
        entry.claims.compactMap { c in c.tokenLifetime.map { $0 - (c.per ?? 0) } }.min()
    }
}
