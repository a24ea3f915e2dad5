/// Which hosts deliveries may go to (`BATON_WEBHOOK_HOSTS`, comma-separated host names or addresses,
/// read by `baton coordinator`): unset, any; set, only those. A delivery to another host is not
/// posted: it fails at once with the reason recorded (a fence for test and locked-down clusters).
public struct WebhookHosts: Sendable, Equatable {
    public let allowed: Set<String>?

    public init(allowed: Set<String>?) { self.allowed = allowed }

    /// From the variable's text: nil or blank allows any host.
    public init(environment text: String?) {
        let hosts = (text ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
        allowed = hosts.isEmpty ? nil : Set(hosts)
    }

    /// Nil if `url` may be posted to; otherwise why not.
    public func refusal(_ url: String) -> String? {
        guard let allowed else { return nil }
        let host = Self.host(of: url)
        return allowed.contains(host) ? nil : "host '\(host)' is not in BATON_WEBHOOK_HOSTS"
    }

    /// The host of an http(s) URL, lowercased, without user, port or brackets.
    static func host(of url: String) -> String {
        var rest = Substring(url)
        if let scheme = rest.range(of: "://") { rest = rest[scheme.upperBound...] }
        rest = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = rest.lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }
        if rest.hasPrefix("["), let close = rest.firstIndex(of: "]") { return String(rest[rest.index(after: rest.startIndex)..<close]).lowercased() }
        if let colon = rest.lastIndex(of: ":") { rest = rest[..<colon] }
        return rest.lowercased()
    }
}
