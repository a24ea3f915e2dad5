import Baton

/// A stored pause (`baton.pauses`): what is paused, since when (seconds since the epoch, on the
/// database's clock), and by whom (the API token's name, or nil from the command line).
public struct PauseRow: Sendable, Equatable {
    public var target: PauseTarget
    public var pausedAt: Double
    public var pausedBy: String?

    public init(target: PauseTarget, pausedAt: Double, pausedBy: String? = nil) {
        self.target = target
        self.pausedAt = pausedAt
        self.pausedBy = pausedBy
    }

    /// As `baton pause list --json` and the API print it.
    public var json: JSON {
        var o: [(key: String, value: JSON)] = [
            ("kind", .string(target.kind.rawValue)), ("name", .string(target.name)),
            ("paused_at", .string(CivilDate.iso8601(pausedAt))),
        ]
        o.append(("paused_by", pausedBy.map(JSON.string) ?? .null))
        return .object(JSONObject(o))
    }
}
