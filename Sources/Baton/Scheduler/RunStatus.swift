/// The state of a run, as stored in `baton.runs.status`.
public enum RunStatus: String, Sendable, Codable, CaseIterable {
    case pending, running, succeeded, failed, cancelled

    public var isTerminal: Bool { self == .succeeded || self == .failed || self == .cancelled }
}
