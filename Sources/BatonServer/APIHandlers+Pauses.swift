import Baton
import BatonSeams
import BatonStore
import Foundation
import Hummingbird

/// Pauses through the API: listed (read), and procedures, pools and runs paused and resumed
/// (operate), as `baton pause` and `baton resume` do (`Store.pause`, `Store.resume`), audited.
extension APIHandlers {
    /// `GET /api/v1/pauses`: every pause, as `baton pause list --json`.
    func listPauses(_ request: Request) async -> Response {
        await answer(request, scope: .read) { [self] _ in
            let rows = try await pool.run { try $0.pauseRows() }
            return (200, ["pauses": .array(rows.map(\.json))])
        }
    }

    /// `POST /api/v1/{procedures|pools|runs}/{name}/pause` and `/resume`: `{"kind", "name", "paused",
    /// "changed"}` (200); a run by its whole id, which must exist (404) and, to be paused, not have ended (409).
    func setPause(_ request: Request, _ kind: PauseKind, _ rawName: String, paused: Bool, source: String?) async -> Response {
        await answer(request, scope: .operate) { [self] token in
            let name = kind == .run ? try Self.runID(rawName) : rawName
            if let problem = PauseTarget.problem(kind: kind, name: name) { throw APIError.invalid(problem) }
            let target = PauseTarget(kind, name)
            let audit = AuditEntry(
                tokenName: token.name, action: "\(kind.rawValue).\(paused ? "pause" : "resume")", target: name, source: source)
            let result: (target: PauseTarget, changed: Bool)
            do {
                result = try await pool.run { store in
                    paused ? try store.pause(target, by: token.name, audit: audit) : try store.resume(target, audit: audit)
                }
            } catch let refusal as PauseRefusal {
                throw refusal.missing ? APIError.notFound(refusal.description) : APIError.conflict(refusal.description)
            }
            return (
                200,
                [
                    "kind": .string(kind.rawValue), "name": .string(result.target.name), "paused": .bool(paused),
                    "changed": .bool(result.changed),
                ]
            )
        }
    }
}
