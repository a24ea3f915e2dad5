import Foundation

/// A plain HTTP/1.1 GET over a loopback socket, as Prometheus or a kubelet probe would make it,
/// and a free port to listen on. Test helpers only: no redirects, no TLS, no chunked bodies.
enum HTTPProbe {
    struct Response {
        let status: Int
        let body: String
    }

    /// `GET path` on 127.0.0.1:`port`; nil if nothing answers.
    static func get(port: Int, _ path: String) -> Response? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return nil }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8)
        guard send(fd, request, request.count, 0) == request.count else { return nil }
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            data += buffer[0..<n]
        }
        let text = String(decoding: data, as: UTF8.self)
        guard let headEnd = text.range(of: "\r\n\r\n") else { return nil }
        let statusLine = text[..<headEnd.lowerBound].split(separator: "\r\n").first ?? ""
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else { return nil }
        return Response(status: status, body: String(text[headEnd.upperBound...]))
    }

    /// A port nothing listens on now (the kernel's choice for port 0).
    static func freePort() -> Int {
        let (fd, port) = listening(listen: false)
        close(fd)
        return port
    }

    /// A socket of the test's own listening on a loopback port: close it when done.
    static func occupiedPort() -> (fd: Int32, port: Int) { listening(listen: true) }

    private static func listening(listen shouldListen: Bool) -> (Int32, Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = loopback(port: 0)
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var bound = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &bound) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        if shouldListen { _ = listen(fd, 1) }
        return (fd, Int(UInt16(bigEndian: bound.sin_port)))
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    /// The value of the sample `name{labels}` (labels as written, e.g. `state="failed"`) in Prometheus text; 0 if absent.
    static func sample(_ text: String, _ name: String, _ labels: String = "") -> Double {
        let key = labels.isEmpty ? name : "\(name){\(labels)}"
        for line in text.split(separator: "\n") where line.hasPrefix(key + " ") {
            return Double(line.dropFirst(key.count + 1)) ?? .nan
        }
        return 0
    }
}
