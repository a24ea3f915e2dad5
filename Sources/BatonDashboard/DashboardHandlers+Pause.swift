import Baton
import BatonSeams
import BatonStore
import Hummingbird

/// The run page's Pause and Resume buttons: `baton pause run` and `baton resume run` for a signed-in
/// token with `operate` (`AdminAccess`), audited as `run.pause` and `run.resume`.
extension DashboardHandlers {
    /// The run-page actions a run offers beyond cancel and retry: `pause` while it runs unpaused,
    /// `resume` while it is paused.
    static func pauseActions(_ run: RunRow) -> [String] {
        guard !run.status.isTerminal else { return run.paused == true ? ["resume"] : [] }
        return [run.paused == true ? "resume" : "pause"]
    }

    /// POST pause or resume: the token first, then `Store.pause` or `Store.resume` (a run that has
    /// ended cannot be paused: 409).
    func pauseRun(_ id: String, paused: Bool, _ request: Request, source: String?) async -> Response {
        if let refused = adminRefusal(request) { return refused }
        return await api {
            let id = try RunID(parsing: id).value
            let audit = audit(paused ? "run.pause" : "run.resume", id, source: source)
            return try await pool.run(write: true) { store -> JSON in
                guard try store.runStatus(id) != nil else { throw DashboardError.notFound("no run with id \(id)") }
                let changed: Bool
                do {
                    changed =
                        paused
                        ? try store.pause(PauseTarget(.run, id), by: viewer?.name, audit: audit).changed
                        : try store.resume(PauseTarget(.run, id), audit: audit).changed
                } catch let refusal as PauseRefusal {
                    throw DashboardError(status: 409, refusal.description)
                }
                return ["run_id": .string(id), "action": .string(paused ? "pause" : "resume"), "changed": .bool(changed)]
            }
        }
    }
}
