import Baton
import BatonPostgres
import Foundation

/// A node as `baton show` lists it.
public struct NodeRow: Sendable, Codable {
    public let key: String
    public let procedure: String
    public let status: String
    public let attempts: Int
    public let input: JSON?
    public let output: JSON?
    public let error: String?
    public let worker: String?
    public let queuedAt: String?
    public let startedAt: String?
    public let finishedAt: String?
    public let seconds: Double?

    enum CodingKeys: String, CodingKey {
        case key, procedure, status, attempts, input, output, error, worker, seconds
        case queuedAt = "queued_at", startedAt = "started_at", finishedAt = "finished_at"
    }
}
