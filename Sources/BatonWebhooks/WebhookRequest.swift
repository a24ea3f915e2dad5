import BatonSeams

/// What to POST for a claimed delivery, as a value: the URL, the body in the webhook's format and the
/// headers, with the signature over that exact body at `time`.
public struct WebhookRequest: Sendable, Equatable {
    public var url: String
    public var body: [UInt8]
    public var headers: [(String, String)]

    public static func == (a: Self, b: Self) -> Bool {
        a.url == b.url && a.body == b.body && a.headers.map { $0.0 + ":" + $0.1 } == b.headers.map { $0.0 + ":" + $0.1 }
    }

    /// The request for `delivery`, signed at `time` (seconds since 1970).
    public init(_ delivery: ClaimedDelivery, time: Int64) {
        url = delivery.url
        let text = delivery.format == .slack ? SlackFormat.body(of: delivery.body) : delivery.body
        body = Array(text.utf8)
        headers = [
            ("Content-Type", "application/json"),
            ("User-Agent", "Baton-Webhooks/1"),
            ("Baton-Event-Id", delivery.eventID),
            ("Baton-Event-Type", delivery.type),
            ("Baton-Delivery-Attempt", String(delivery.attempts + 1)),
            (WebhookSigner.header, WebhookSigner(secret: delivery.secret).signature(body: body, time: time)),
        ]
    }

    /// The header named `name` (case-insensitive), if any.
    public func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }
}
