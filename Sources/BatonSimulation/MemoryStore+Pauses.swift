import Baton
import BatonSeams
import Foundation

/// `baton.pauses` in memory, as `Store.pause` and `Store.resume` keep it: a change wakes the
/// listening connections (`baton_pauses`).
extension MemoryStore {
    /// Pauses `target`; false if it was paused already. A run must exist and not have ended.
    @discardableResult
    public func pause(_ target: PauseTarget) throws -> Bool {
        if target.kind == .run {
            try Self.requireUUID(target.name)
            guard let run = tables.runs[target.name] else { throw Self.missingRun(target.name, table: "pauses") }
            guard !run.status.isTerminal else { return false }
        }
        guard tables.pauses[target] == nil else { return false }
        tables.pauses[target] = now.timeIntervalSince1970
        notify(.pauses)
        return true
    }

    /// Ends the pause of `target`; false if it was not paused.
    @discardableResult
    public func resume(_ target: PauseTarget) -> Bool {
        guard tables.pauses.removeValue(forKey: target) != nil else { return false }
        notify(.pauses)
        return true
    }

    /// What is paused, with when each pause was stored.
    public var pauseTimes: [PauseTarget: Double] { tables.pauses }
}
