import Baton

/// One entry of a run's event log, as `GET /api/v1/runs/{id}/events` gives it.
public struct RunEvent: Sendable, Equatable {
    public let id: Int
    /// The node it concerns, nil for the run's own events (`run_succeeded`...).
    public let node: String?
    public let kind: String
    /// PostgreSQL `timestamptz` text in UTC.
    public let at: String
    public let detail: JSON

    init?(_ json: JSON) {
        guard let id = json["id"]?.intValue, let kind = json["kind"]?.stringValue else { return nil }
        self.id = id
        self.node = json["node"]?.stringValue
        self.kind = kind
        self.at = json["at"]?.stringValue ?? ""
        self.detail = json["detail"] ?? .null
    }
}
