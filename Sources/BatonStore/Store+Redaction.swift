import BatonPostgres

extension Store {
    /// `url` with every password masked (`postgresql://user:***@host/db`), for logs and messages.
    public static func redacted(_ url: String) -> String { redactedURL(url) }
}
