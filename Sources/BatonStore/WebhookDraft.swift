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

    /// Nil for an `http://` or `https://` URL (the scheme in lowercase) with a host, no space or control
    /// character, at most 2048 characters (the API's schema says the same).
    public static func urlProblem(_ url: String) -> WebhookProblem? {
        let shown = String(url.unicodeScalars.prefix(200).map { isControl($0) ? "?" : Character($0) })
        // By bytes, not characters: a scalar that joins the `/` into one character (an emoji modifier) must not hide the scheme.
        guard url.utf8.starts(with: "http://".utf8) || url.utf8.starts(with: "https://".utf8) else {
            return WebhookProblem("the URL '\(shown)' is not http:// or https://")
        }
        if url.unicodeScalars.count > 2048 { return WebhookProblem("the URL has \(url.unicodeScalars.count) characters; at most 2048") }
        if url.unicodeScalars.contains(where: { $0.properties.isWhitespace || isControl($0) }) {
            return WebhookProblem("the URL '\(shown)' has a space or control character")
        }
        let rest = url.unicodeScalars.drop(while: { $0 != ":" }).dropFirst(3)
        if rest.isEmpty || "/?#:".unicodeScalars.contains(rest.first!) { return WebhookProblem("the URL '\(shown)' has no host") }
        return nil
    }

    /// Nil for a secret of 16 to 256 characters without control characters.
    public static func secretProblem(_ secret: String) -> WebhookProblem? {
        let count = secret.unicodeScalars.count
        guard (16...256).contains(count) else { return WebhookProblem("the secret has \(count) characters; it needs 16 to 256") }
        if secret.unicodeScalars.contains(where: isControl) { return WebhookProblem("the secret has a control character") }
        return nil
    }

    /// C0, DEL and C1 control characters.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool { scalar.value < 0x20 || (0x7f...0x9f).contains(scalar.value) }
}
