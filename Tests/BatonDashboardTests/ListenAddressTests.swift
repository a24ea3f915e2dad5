import Baton
import BatonDashboard
import BatonHTTP
import Testing

@Suite("--listen addresses")
struct ListenAddressTests {
    @Test func loopbackAddresses() throws {
        for text in ["127.0.0.1:8080", "127.1.2.3:80", "localhost:8080", "[::1]:9000"] {
            #expect(try ListenAddress(parsing: text, flag: "--listen").isLoopback, "\(text)")
        }
        for text in ["0.0.0.0:8080", "10.0.0.5:80", "[::]:80", "dashboard.internal:80"] {
            #expect(try !ListenAddress(parsing: text, flag: "--listen").isLoopback, "\(text)")
        }
    }
}
