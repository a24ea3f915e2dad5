import Baton

/// A webhook as asked for (`baton webhook add`, `POST /api/v1/webhooks`), checked before anything is
/// stored: both say the same words for the same bad input.
public struct WebhookDraft: Sendable, Equatable {
    public var url: String
    public var events: [WebhookEventType]
    public var nameGlob: NameGlob?
    public var secret: String
    /// Whether the secret was made here (then it is shown once).
    public var secretGenerated: Bool
    public var format: WebhookFormat

    /// Checks each part; `secret` nil makes one (`whsec_` and 43 base64url characters).
    public static func make(
        url: String, events: String, nameGlob: String?, secret: String?, format: String?
    ) -> Result<
        WebhookDraft, WebhookProblem
    > {
        if let problem = urlProblem(url) { return .failure(problem) }
        let kinds: [WebhookEventType]
        switch WebhookEventType.parseList(events) {
        case let .success(k): kinds = k
        case let .failure(problem): return .failure(problem)
        }
        var glob: NameGlob?
        if let nameGlob {
            switch NameGlob.parse(nameGlob) {
            case let .success(g): glob = g
            case let .failure(problem): return .failure(problem)
            }
        }
        if let secret, let problem = secretProblem(secret) { return .failure(problem) }
        let chosen: WebhookFormat
        if let format {
            guard let f = WebhookFormat(rawValue: format) else {
                return .failure(WebhookProblem("unknown format '\(format)' (json or slack)"))
            }
            chosen = f
        } else {
            chosen = .json
        }
        let made = secret ?? "whsec_" + TokenSecret.generate().text.dropFirst(TokenSecret.marker.count)
        return .success(
            WebhookDraft(url: url, events: kinds, nameGlob: glob, secret: made, secretGenerated: secret == nil, format: chosen))
    }

    /// Nil for an `http://` or `https://` URL with a host and no spaces, at most 2048 bytes.
    public static func urlProblem(_ url: String) -> WebhookProblem? {
        let lower = url.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
            return WebhookProblem("the URL '\(url.prefix(200))' is not http:// or https://")
        }
        if url.utf8.count > 2048 { return WebhookProblem("the URL has \(url.utf8.count) bytes; at most 2048") }
        if url.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.properties.generalCategory == .control }) {
            return WebhookProblem("the URL '\(url.prefix(200))' has a space or control character")
        }
        let rest = url.drop(while: { $0 != ":" }).dropFirst(3)
        let host = rest.prefix(while: { $0 != "/" && $0 != "?" && $0 != "#" })
        if host.isEmpty || host.hasPrefix(":") { return WebhookProblem("the URL '\(url.prefix(200))' has no host") }
        return nil
    }

    /// Nil for a secret of 16 to 256 printable ASCII characters.
    public static func secretProblem(_ secret: String) -> WebhookProblem? {
        guard (16...256).contains(secret.utf8.count) else {
            return WebhookProblem("the secret has \(secret.utf8.count) bytes; it needs 16 to 256")
        }
        guard secret.utf8.allSatisfy({ (33...126).contains($0) }) else {
            return WebhookProblem("the secret must be printable ASCII without spaces")
        }
        return nil
    }
}
