import Baton
import BatonHTTP

extension ListenAddress {
    /// Whether only this machine can connect: a loopback address, or `localhost`.
    public var isLoopback: Bool { host == "localhost" || host == "::1" || host.hasPrefix("127.") }
}
