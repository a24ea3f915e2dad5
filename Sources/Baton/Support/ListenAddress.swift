/// A `HOST:PORT` to listen on (`--metrics 127.0.0.1:9464`, `[::1]:9464`, `0.0.0.0:9464`), checked
/// before anything starts: a bad one is a one-line error naming the flag and what is wrong.
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    public let host: String
    public let port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `text`; `flag` names the option in the error.
    public init(parsing text: String, flag: String) throws(ListenAddressError) {
        func bad(_ why: String) -> ListenAddressError { ListenAddressError("\(flag): '\(text)' is not HOST:PORT: \(why)") }
        guard let colon = text.lastIndex(of: ":") else { throw bad("the port is missing (for example 127.0.0.1:9464)") }
        var host = String(text[..<colon])
        let portText = text[text.index(after: colon)...]
        if host.hasPrefix("[") {
            guard host.hasSuffix("]"), host.count > 2 else { throw bad("an IPv6 host is written [ADDRESS]") }
            host = String(host.dropFirst().dropLast())
        } else if host.contains(":") {
            throw bad("write an IPv6 host in brackets, as [::1]:9464")
        }
        guard !host.isEmpty else { throw bad("the host is missing (127.0.0.1 for this machine only, 0.0.0.0 for every interface)") }
        guard host.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == ":" || $0 == "%" }) else {
            throw bad("the host has characters a host name or address cannot have")
        }
        guard !portText.isEmpty, portText.allSatisfy(\.isASCII), let port = Int(portText) else { throw bad("the port is not a number") }
        guard (1...65_535).contains(port) else { throw bad("the port must be from 1 to 65535") }
        self.init(host: host, port: port)
    }

    /// The same host, `offset` ports further (worker process N of `--processes` serves on PORT+N).
    public func shifted(by offset: Int) -> ListenAddress { ListenAddress(host: host, port: port + offset) }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// A `ListenAddress` that does not parse.
public struct ListenAddressError: Error, CustomStringConvertible, Equatable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
