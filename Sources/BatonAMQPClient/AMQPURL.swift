import Foundation

/// A parsed `amqp://user:pass@host:port/vhost` or `amqps://…` URL.
///
/// Missing parts take RabbitMQ's defaults: user and password `guest`, host
/// `127.0.0.1`, port 5672 (5671 for amqps) and vhost `/`. The vhost is the
/// percent-decoded path, so `%2f` is `/`. `description` is ``redacted``.
public struct AMQPURL: Sendable, Equatable, CustomStringConvertible {
    /// True for `amqps://` (TLS).
    public var useTLS: Bool
    public var user: String
    public var password: String
    public var host: String
    public var port: Int
    public var vhost: String
    /// For amqps: a PEM file of the CA to verify the broker against (`?cacertfile=PATH`);
    /// nil means the system bundle.
    public var caCertificatePath: String?

    public init(
        useTLS: Bool = false, user: String = "guest", password: String = "guest",
        host: String = "127.0.0.1", port: Int? = nil, vhost: String = "/"
    ) {
        self.useTLS = useTLS
        self.user = user
        self.password = password
        self.host = host
        self.port = port ?? (useTLS ? 5671 : 5672)
        self.vhost = vhost
    }

    /// Parses a URL; errors name the problem but never echo the URL's parts.
    public init(_ string: String) throws {
        guard let schemeEnd = string.range(of: "://") else {
            throw Self.invalid("expected amqp://host or amqps://host")
        }
        let scheme = string[..<schemeEnd.lowerBound].lowercased()
        switch scheme {
        case "amqp": self.init(useTLS: false)
        case "amqps": self.init(useTLS: true)
        default:
            let shown = scheme.allSatisfy { $0.isLetter || $0.isNumber || $0 == "+" } ? "'\(scheme)'" : "the scheme"
            throw Self.invalid("unsupported scheme \(shown): expected amqp:// or amqps://")
        }

        var rest = string[schemeEnd.upperBound...]
        if rest.contains("#") { throw Self.invalid("fragments are not supported") }
        if let question = rest.firstIndex(of: "?") {
            for pair in rest[rest.index(after: question)...].split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, parts[0] == "cacertfile", let path = String(parts[1]).removingPercentEncoding, !path.isEmpty else {
                    let name = parts.first.map(String.init) ?? ""
                    let shown = name.allSatisfy { $0.isLetter || $0 == "_" } && !name.isEmpty ? "'\(name)'" : "a query parameter"
                    throw Self.invalid("unsupported \(shown): the only query parameter is cacertfile=PATH")
                }
                caCertificatePath = path
            }
            rest = rest[..<question]
        }
        let authority: Substring
        let path: Substring?
        if let slash = rest.firstIndex(of: "/") {
            authority = rest[..<slash]
            path = rest[rest.index(after: slash)...]
        } else {
            authority = rest
            path = nil
        }

        var hostPort = authority
        if let at = authority.lastIndex(of: "@") {
            let userInfo = authority[..<at]
            hostPort = authority[authority.index(after: at)...]
            if let colon = userInfo.firstIndex(of: ":") {
                let rawUser = userInfo[..<colon]
                if !rawUser.isEmpty { user = try Self.decode(rawUser, what: "user name") }
                password = try Self.decode(userInfo[userInfo.index(after: colon)...], what: "password")
            } else if !userInfo.isEmpty {
                user = try Self.decode(userInfo, what: "user name")
            }
        }

        var rawHost = hostPort
        var rawPort: Substring?
        if hostPort.hasPrefix("[") {
            guard let close = hostPort.firstIndex(of: "]") else {
                throw Self.invalid("IPv6 address is missing its closing ']'")
            }
            rawHost = hostPort[hostPort.index(after: hostPort.startIndex)..<close]
            let after = hostPort[hostPort.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw Self.invalid("unexpected text after the IPv6 address") }
                rawPort = after.dropFirst()
            }
        } else if let colon = hostPort.firstIndex(of: ":") {
            rawHost = hostPort[..<colon]
            rawPort = hostPort[hostPort.index(after: colon)...]
            if rawPort!.contains(":") {
                throw Self.invalid("IPv6 addresses must be written in brackets, like [::1]")
            }
        }
        if !rawHost.isEmpty { host = try Self.decode(rawHost, what: "host") }
        if let rawPort {
            guard let value = Int(rawPort), (1...65535).contains(value) else {
                throw Self.invalid("the port must be a number from 1 to 65535")
            }
            port = value
        }

        if let path, !path.isEmpty {
            if path.contains("/") {
                throw Self.invalid("the vhost must not contain '/': write it as %2f")
            }
            vhost = try Self.decode(path, what: "vhost")
        }
    }

    /// The URL with the password replaced by `***`, safe to log.
    public var redacted: String {
        var text = useTLS ? "amqps://" : "amqp://"
        text += Self.encode(user)
        if !password.isEmpty { text += ":***" }
        text += "@"
        text += host.contains(":") ? "[\(host)]" : Self.encode(host)
        text += ":\(port)/\(Self.encode(vhost))"
        if let caCertificatePath { text += "?cacertfile=\(Self.encode(caCertificatePath))" }
        return text
    }

    public var description: String { redacted }

    private static func invalid(_ reason: String) -> AMQPError {
        AMQPError(.invalidURL, reason)
    }

    private static func decode(_ part: Substring, what: String) throws -> String {
        guard let decoded = String(part).removingPercentEncoding else {
            throw invalid("the \(what) has an invalid percent-escape")
        }
        return decoded
    }

    private static let unreserved: CharacterSet = {
        var set = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        set.insert(charactersIn: "-._~")
        return set
    }()

    private static func encode(_ part: String) -> String {
        part.addingPercentEncoding(withAllowedCharacters: unreserved) ?? part
    }
}
