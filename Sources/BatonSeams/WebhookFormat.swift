/// How a delivery's body is written: the event as JSON, or a Slack incoming-webhook message.
public enum WebhookFormat: String, Sendable, CaseIterable {
    case json
    case slack
}
