import Foundation

/// A signal that reached its node before the node waited for one: kept in the node's bookkeeping
/// (`baton.nodes.scheduler`, so it survives a coordinator restart) until the node waits, then consumed.
public struct KeptSignal: Sendable, Equatable {
    /// What was sent (`null` when `baton signal` had no `--data`).
    public let value: JSON
    /// When it was sent.
    public let sentAt: Date

    public init(value: JSON, sentAt: Date) {
        self.value = value
        self.sentAt = sentAt
    }

    /// As the bookkeeping stores it: `{"value": ..., "sent_at": seconds}` (a `null` value stays distinct from none).
    var json: JSON { ["value": value, "sent_at": .double(sentAt.timeIntervalSince1970)] }

    init?(json: JSON) {
        guard let object = json.objectValue, let value = object["value"] else { return nil }
        self.init(value: value, sentAt: Date(timeIntervalSince1970: object["sent_at"]?.numberValue ?? 0))
    }
}
