import Baton
import BatonCommandLine
import BatonDashboard
import BatonSeams
import Foundation

/// `baton pause` and `baton resume` through `baton server`'s API: `POST /procedures|pools|runs/{name}/pause`
/// and `/resume`, `GET /pauses`.
extension RemoteRuns: PauseAccess {
    func pause(_ target: PauseTarget) async throws -> (target: PauseTarget, changed: Bool) { try await change(target, "pause") }

    func resume(_ target: PauseTarget) async throws -> (target: PauseTarget, changed: Bool) { try await change(target, "resume") }

    func pauses() async throws -> [PauseRow] {
        let answer = try await call("GET", "/pauses")
        return (answer["pauses"]?.arrayValue ?? []).compactMap { p in
            guard let kind = p["kind"]?.stringValue.flatMap(PauseKind.init(rawValue:)), let name = p["name"]?.stringValue else { return nil }
            return PauseRow(
                target: PauseTarget(kind, name), pausedAt: p["paused_at"]?.stringValue.flatMap(DisplayTime.seconds) ?? 0,
                pausedBy: p["paused_by"]?.stringValue)
        }
    }

    private func change(_ target: PauseTarget, _ verb: String) async throws -> (target: PauseTarget, changed: Bool) {
        let name = target.kind == .run ? try await resolveRunID(target.name) : target.name
        let segment = name.addingPercentEncoding(withAllowedCharacters: Self.segmentCharacters) ?? name
        let answer = try await call("POST", "/\(target.kind.rawValue)s/\(segment)/\(verb)", body: .object(JSONObject([])))
        return (PauseTarget(target.kind, answer["name"]?.stringValue ?? name), answer["changed"]?.boolValue ?? true)
    }
}
