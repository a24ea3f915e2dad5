import Baton
import Foundation

/// Which runs the loop keeps loaded, as a value: a run named by a message, a request or a grant is
/// loaded unless it ended recently (`finished`), its failure is still to be written, or its id is no
/// UUID (so a malformed one never reaches SQL); a run read back already ended is not kept; a run is
/// evicted once a commit recorded its end, or once a request left it ended with nothing to commit.
/// The loop holds the runs' state machines (`CoordinatorLoop.runs`) and carries the answers out.
struct RunCache: Sendable {
    /// Runs that ended recently, so late reports for them need no lookup.
    private(set) var finished: RecentSet<String>

    init(capacity: Int = 10_000) { finished = RecentSet(capacity: capacity) }

    /// Whether to load run `id`, not loaded now (`failureUnrecorded`: it failed as a whole, and that
    /// is not written yet).
    func shouldLoad(_ id: String, failureUnrecorded: Bool) -> Bool {
        !finished.contains(id) && !failureUnrecorded && UUID(uuidString: id) != nil
    }

    /// Run `id` was read from the store with `status` (nil: there is none): whether to keep it. One
    /// that ended, or none, is remembered as finished.
    mutating func loaded(_ id: String, status: RunStatus?) -> Bool {
        guard let status, !status.isTerminal else {
            finished.insert(id)
            return false
        }
        return true
    }

    /// A batch with run `id` was committed, the run now `status` (nil: not loaded): whether to evict it.
    mutating func committed(_ id: String, status: RunStatus?) -> Bool {
        guard status?.isTerminal == true else { return false }
        finished.insert(id)
        return true
    }

    /// A request (cancel, retry) was applied to run `id`, now `status`: whether to evict it (it ended
    /// and nothing of it waits in the batch, e.g. cancelling a finished run).
    /// (`inBatch` is only asked of a run that ended: it scans the batch.)
    mutating func requestTaken(_ id: String, status: RunStatus, inBatch: @autoclosure () -> Bool) -> Bool {
        guard status.isTerminal, !inBatch() else { return false }
        finished.insert(id)
        return true
    }

    /// Run `id` ended outside a commit of its own (its failure was written).
    mutating func ended(_ id: String) { finished.insert(id) }

    /// Run `id` may run again (a retry, or a partition taken over): it is loaded when next named.
    mutating func reopen(_ id: String) { finished.remove(id) }

    /// Forgets the finished runs `isGone` says (the partitions given up: their new owner may retry them).
    mutating func forget(where isGone: (String) -> Bool) { finished.removeAll(where: isGone) }
}
