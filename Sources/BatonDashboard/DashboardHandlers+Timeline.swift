import Baton
import BatonStore
import Foundation
import Hummingbird

extension DashboardHandlers {
    /// GET /api/runs/ID/timeline.json: the run's id and status, then `RunTimeline.json` (every node's
    /// attempts and waits, in milliseconds from the run's first event), which the run page draws.
    func timelineJSON(_ id: String) async -> Response {
        do {
            let id = try RunID(parsing: id).value
            let json = try await pool.run { store -> JSON in
                guard let (status, timeline) = try store.timeline(ofRun: id) else { throw DashboardError.notFound("no run with id \(id)") }
                return timeline.document(run: id, status: status)
            }
            return DashboardResponse.json(json)
        } catch {
            return DashboardResponse.apiError(error)
        }
    }
}
