import BatonPostgres
import Foundation
import Testing

/// PostgreSQL connections get network timeouts by default, and a URL's own value wins.
@Suite struct NetworkTimeoutTests {
    @Test func everyConnectionGetsTheDefaultTimeouts() throws {
        let db = try connect()
        defer { db.close() }
        for (keyword, value) in PGConnection.defaultParameters {
            #expect(db.option(keyword) == value, "\(keyword)")
        }
        #expect(db.option("connect_timeout") == "5" && db.option("tcp_user_timeout") == "30000")
    }

    @Test func aValueGivenInTheURLWins() throws {
        let separator = testDatabaseURL.contains("?") ? "&" : "?"
        let db = try PGConnection(url: testDatabaseURL + separator + "connect_timeout=7&keepalives_idle=20&tcp_user_timeout=9000")
        defer { db.close() }
        #expect(db.option("connect_timeout") == "7")
        #expect(db.option("keepalives_idle") == "20")
        #expect(db.option("tcp_user_timeout") == "9000")
        #expect(db.option("keepalives_interval") == "5", "the others keep their defaults")
    }

    /// A server that accepts the connection and never answers (a socket of the test's own, listening and
    /// never read): the attempt gives up after `connect_timeout` instead of waiting for ever.
    @Test func aServerThatNeverAnswersIsGivenUpOn() throws {
        let (fd, port) = try silentListener()
        defer { close(fd) }
        let started = ContinuousClock.now
        let error = try #require(throws: PostgresError.self) {
            try PGConnection(url: "postgresql://postgres@127.0.0.1:\(port)/baton?connect_timeout=2")
        }
        let took = ContinuousClock.now - started
        #expect(error.isConnectionLost, "\(error)")
        #expect(took >= .seconds(1.5) && took < .seconds(4), "gave up after \(took)")
    }
}

/// A loopback socket listening on a port of the kernel's choice that never accepts or reads: the
/// kernel completes connections to it, and nothing ever answers. Close `fd` when done.
func silentListener() throws -> (fd: Int32, port: Int) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard fd >= 0, bound == 0, listen(fd, 16) == 0 else { throw PostgresError(kind: .connection, message: "cannot listen") }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
    return (fd, Int(UInt16(bigEndian: address.sin_port)))
}
