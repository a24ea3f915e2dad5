import BatonStore

/// A row of `baton.webhooks` in a `MemoryStore`: the webhook as listed, with its secret and its
/// name filter (matched as the trigger's `LIKE` is).
struct MemoryWebhookRow: Sendable, Equatable {
    var row: WebhookRow
    var secret: String
    var glob: NameGlob?
}
