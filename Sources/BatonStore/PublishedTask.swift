/// A task the broker confirmed: one attempt of one node of a run.
public struct PublishedTask: Sendable, Equatable {
    public let runID: String
    public let key: String
    public let attempt: Int
    public init(runID: String, key: String, attempt: Int) {
        self.runID = runID
        self.key = key
        self.attempt = attempt
    }
}
