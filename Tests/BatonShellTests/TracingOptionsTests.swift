import BatonCommandLine
import Testing

@Suite("--otlp-endpoint and $OTEL_EXPORTER_OTLP_ENDPOINT")
struct TracingOptionsTests {
    static func endpoint(_ flag: String?, _ variable: String? = nil) throws -> String? {
        var options = try TracingOptions.parse(flag.map { ["--otlp-endpoint", $0] } ?? [])
        if flag == nil { options.otlpEndpoint = nil }
        return try options.endpoint(environment: variable.map { ["OTEL_EXPORTER_OTLP_ENDPOINT": $0] } ?? [:])
    }

    @Test func offWhenNeitherIsSetAndTheFlagWinsOverTheVariable() throws {
        #expect(try Self.endpoint(nil) == nil)
        #expect(try Self.endpoint(nil, "") == nil, "an empty variable is unset")
        #expect(try Self.endpoint(nil, "http://collector:4318") == "http://collector:4318")
        #expect(try Self.endpoint("https://tempo.example:4318/otlp", "http://collector:4318") == "https://tempo.example:4318/otlp")
    }

    @Test(arguments: [
        ("ftp://127.0.0.1:4318", "--otlp-endpoint: 'ftp://127.0.0.1:4318'"),
        ("127.0.0.1:4318", "--otlp-endpoint: '127.0.0.1:4318'"),
        ("http://", "--otlp-endpoint: 'http://'"),
        ("http://host:4318/?x=1", "--otlp-endpoint: 'http://host:4318/?x=1'"),
    ])
    func aBadURLIsAUsageErrorNamingWhereItCameFrom(_ given: String, _ message: String) throws {
        let error = #expect(throws: CLIFailure.self) { try Self.endpoint(given) }
        #expect(error?.exitCode == 2)
        #expect(error?.message.hasPrefix(message) == true, "\(error?.message ?? "")")
        let fromVariable = #expect(throws: CLIFailure.self) { try Self.endpoint(nil, given) }
        #expect(fromVariable?.message.hasPrefix("$OTEL_EXPORTER_OTLP_ENDPOINT: '\(given)'") == true)
    }
}
