/// An attempt a worker holds: taken from the broker and running, or waiting in the worker for a
/// slot. A worker's heartbeat lists them (`WorkerHeartbeat.holding`), so the coordinator does not
/// take a task for lost because its queue is empty while a worker holds it.
public struct HeldAttempt: Codable, Sendable, Hashable {
    public let runID: String
    public let key: String
    public let attempt: Int

    public init(runID: String, key: String, attempt: Int) {
        self.runID = runID
        self.key = key
        self.attempt = attempt
    }

    enum CodingKeys: String, CodingKey {
        case runID = "run_id"
        case key, attempt
    }
}
