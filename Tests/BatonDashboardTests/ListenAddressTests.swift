import BatonDashboard
import Testing

@Suite("--listen addresses")
struct ListenAddressTests {
    @Test func goodAddressesParse() throws {
        #expect(try ListenAddress(parsing: "127.0.0.1:8080") == ListenAddress(host: "127.0.0.1", port: 8080))
        #expect(try ListenAddress(parsing: "localhost:0") == ListenAddress(host: "localhost", port: 0))
        #expect(try ListenAddress(parsing: "[::1]:9000") == ListenAddress(host: "::1", port: 9000))
        #expect(try ListenAddress(parsing: "0.0.0.0:80").isLoopback == false)
        #expect(try ListenAddress(parsing: "127.0.0.1:80").isLoopback)
    }

    @Test(arguments: [
        ("127.0.0.1", "missing ':PORT'"), ("127.0.0.1:", "'' is not a port"), ("127.0.0.1:99999", "'99999' is not a port"),
        ("example.com:80", "'example.com' is not an IPv4 address or localhost"), ("1.2.3:80", "'1.2.3' is not an IPv4"),
        ("256.0.0.1:80", "'256.0.0.1' is not an IPv4"), ("[::1:80", "missing ']'"), ("127.0.0.1:8o", "'8o' is not a port"),
        ("[zz]:80", "'zz' is not an IPv6 address"),
    ])
    func badAddressesSayWhatIsWrong(_ text: String, _ message: String) {
        #expect {
            try ListenAddress(parsing: text)
        } throws: { error in
            let message2 = (error as? DashboardError)?.message ?? ""
            return message2.hasPrefix("--listen '\(text)': ") && message2.contains(message)
                && message2.hasSuffix("(use HOST:PORT, e.g. 127.0.0.1:8080)")
        }
    }
}
