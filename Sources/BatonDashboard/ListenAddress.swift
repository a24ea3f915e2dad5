/// Where the dashboard listens: `HOST:PORT` with an IPv4 address, `localhost` or a bracketed IPv6
/// address (`[::1]:8080`). Parsed and checked before anything starts.
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    public let host: String
    public let port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// The address in `text`, or an error saying what is wrong with it.
    public init(parsing text: String) throws(DashboardError) {
        let bad = { (why: String) in DashboardError(status: 400, "--listen '\(text)': \(why) (use HOST:PORT, e.g. 127.0.0.1:8080)") }
        let host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw bad("missing ']' after the IPv6 address") }
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { throw bad("missing ':PORT'") }
            portText = rest.dropFirst()
            guard Self.isIPv6(host) else { throw bad("'\(host)' is not an IPv6 address") }
        } else {
            guard let colon = text.lastIndex(of: ":") else { throw bad("missing ':PORT'") }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
            guard host == "localhost" || Self.isIPv4(host) else { throw bad("'\(host)' is not an IPv4 address or localhost") }
        }
        guard !portText.isEmpty, portText.allSatisfy(\.isASCII), let port = Int(portText), (0...65535).contains(port) else {
            throw bad("'\(portText)' is not a port (0 to 65535)")
        }
        self.init(host: String(host), port: port)
    }

    /// Whether only this machine can connect (a loopback address).
    public var isLoopback: Bool { host == "localhost" || host == "::1" || host.hasPrefix("127.") }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    static func isIPv4(_ text: Substring) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4
            && parts.allSatisfy { part in
                !part.isEmpty && part.count <= 3 && part.allSatisfy { $0.isASCII && $0.isNumber } && Int(part)! <= 255
            }
    }

    static func isIPv6(_ text: Substring) -> Bool {
        guard text.contains(":"), text.count <= 45 else { return false }
        return text.allSatisfy { $0.isASCII && ($0.isHexDigit || $0 == ":" || $0 == ".") }
    }
}
