import Baton

/// One attempt of one node of one run, as a worker tracks what it runs and what was cancelled.
struct AttemptID: Hashable, Sendable {
    let runID: String
    let key: String
    let attempt: Int

    init(runID: String, key: String, attempt: Int) {
        self.runID = runID
        self.key = key
        self.attempt = attempt
    }

    init(_ task: TaskDispatch) { self.init(runID: task.runID, key: task.key, attempt: task.attempt) }
}
