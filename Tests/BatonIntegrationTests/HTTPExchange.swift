import Baton
import Foundation

/// Plain HTTP/1.1 over a socket to 127.0.0.1, one request a connection: the API tests set any
/// header they like (Host and Origin included), which URLSession would not let them.
enum HTTPExchange {
    struct Reply {
        let status: Int
        /// Header names lowercased.
        let headers: [String: String]
        let body: String
        func json() throws -> JSON { try JSONParser.parse(body) }
    }

    struct Failure: Error, CustomStringConvertible { let description: String }

    static func request(_ method: String = "GET", port: Int, _ path: String, headers: [String: String] = [:], body: String = "") throws -> Reply {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(errno)") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure(description: "connect to 127.0.0.1:\(port): errno \(errno)") }
        var all = ["Host": "127.0.0.1:\(port)", "Connection": "close"]
        if method == "POST" { all["Content-Length"] = String(body.utf8.count) }
        all.merge(headers) { _, new in new }
        var text = "\(method) \(path) HTTP/1.1\r\n"
        for (name, value) in all.sorted(by: { $0.key < $1.key }) { text += "\(name): \(value)\r\n" }
        text += "\r\n" + body
        let bytes = Array(text.utf8)
        guard write(fd, bytes, bytes.count) == bytes.count else { throw Failure(description: "write failed") }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n <= 0 { break }
            received += buffer[0..<n]
        }
        let response = String(decoding: received, as: UTF8.self)
        guard let split = response.range(of: "\r\n\r\n") else { throw Failure(description: "no HTTP response: \(response.prefix(200))") }
        let lines = response[..<split.lowerBound].components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw Failure(description: "bad status line \(lines[0])") }
        var parsed: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            parsed[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Reply(status: status, headers: parsed, body: String(response[split.upperBound...]))
    }
}
