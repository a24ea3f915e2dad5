import Baton
import BatonHTTP

/// Which `Host` headers the dashboard answers. Listening on a loopback address, only the names of
/// this machine (`127.0.0.1`, `localhost`, `[::1]`, the address itself) with the port: a page on
/// another site that rebinds its DNS name to 127.0.0.1 cannot read the dashboard through it.
/// Listening elsewhere (an operator's choice), any host.
public struct HostCheck: Sendable {
    public let listen: ListenAddress

    public init(listen: ListenAddress) { self.listen = listen }

    public func allows(_ host: String?) -> Bool {
        guard listen.isLoopback else { return true }
        guard let host = host?.lowercased() else { return false }
        let names = ["127.0.0.1", "localhost", "[::1]", listen.host.contains(":") ? "[\(listen.host)]" : listen.host]
        return names.contains { name in host == name || host.hasPrefix(name + ":") && Int(host.dropFirst(name.count + 1)) != nil }
    }
}
