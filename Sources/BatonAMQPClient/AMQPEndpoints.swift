import Foundation

/// The brokers of a cluster, from one URL or a comma-separated list of them:
/// `amqp://user:pass@h1:5672/vhost,amqp://user:pass@h2:5672/vhost`. An entry without a scheme is a
/// host (with an optional port) that takes its scheme, user, password, vhost and `cacertfile` from
/// the first URL: `amqp://user:pass@h1:5672/vhost,h2:5673,h3`. A connection tries them in turn.
public struct AMQPEndpoints: Sendable, Equatable, CustomStringConvertible {
    /// At least one.
    public let urls: [AMQPURL]

    /// Parses a URL or a list; an error names the entry (never its password).
    public init(_ string: String) throws {
        let entries = string.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        var urls: [AMQPURL] = []
        for (index, entry) in entries.enumerated() {
            let place = entries.count == 1 ? "" : "entry \(index + 1) of \(entries.count) in the URL list: "
            guard !entry.isEmpty else { throw AMQPError(.invalidURL, "\(place)it is empty") }
            do {
                if entry.contains("://") {
                    urls.append(try AMQPURL(entry))
                } else {
                    guard let first = urls.first else {
                        throw AMQPError(.invalidURL, "expected amqp://host or amqps://host")
                    }
                    urls.append(try Self.host(entry, like: first))
                }
            } catch let error as AMQPError {
                throw AMQPError(.invalidURL, place + error.detail)
            }
        }
        self.urls = urls
    }

    /// `entry` (host or host:port, IPv6 in brackets) with everything else from `first`.
    private static func host(_ entry: String, like first: AMQPURL) throws -> AMQPURL {
        if entry.contains("@") || entry.contains("/") || entry.contains("?") {
            throw AMQPError(.invalidURL, "a host in a list is host or host:port; give a whole URL for anything else")
        }
        var url = try AMQPURL((first.useTLS ? "amqps://" : "amqp://") + entry)
        url.user = first.user
        url.password = first.password
        url.vhost = first.vhost
        url.caCertificatePath = first.caCertificatePath
        return url
    }

    /// Every entry with its password replaced by `***`, comma-separated.
    public var redacted: String { urls.map(\.redacted).joined(separator: ",") }

    public var description: String { redacted }
}
