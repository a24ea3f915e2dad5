import Baton
import BatonPostgres
import Foundation

/// A run as `baton runs` and `baton show` list it.
public struct RunRow: Sendable, Codable {
    public let id: String
    public let name: String
    public let status: RunStatus
    public let submittedAt: String
    public let startedAt: String?
    public let finishedAt: String?
    public let error: String?
    public let nodeCount: Int
    public let nodesDone: Int
    /// The run's input (`baton.runs.input`): the graph's defaults with `submit --input` merged over them.
    public var input: JSON = .object(JSONObject())
    /// True while the run is paused (`baton pause run`); nil only in rows of a server older than pauses.
    public var paused: Bool?

    /// The status as `baton runs` prints it: `running (paused)` while the run is paused.
    public var statusText: String { paused == true && !status.isTerminal ? "\(status.rawValue) (paused)" : status.rawValue }

    enum CodingKeys: String, CodingKey {
        case id, name, status, error, input, paused
        case submittedAt = "submitted_at", startedAt = "started_at", finishedAt = "finished_at"
        case nodeCount = "node_count", nodesDone = "nodes_done"
    }
}
