import Testing

@testable import BatonAMQP

@Suite struct AMQPURLTests {
    @Test func parsesEveryPart() throws {
        let url = try AMQPURL("amqp://alice:s3cret@rabbit.example:5673/prod")
        #expect(url == AMQPURL(user: "alice", password: "s3cret", host: "rabbit.example", port: 5673, vhost: "prod"))
    }

    @Test func appliesDefaults() throws {
        #expect(try AMQPURL("amqp://") == AMQPURL())
        #expect(try AMQPURL("amqp://rabbit") == AMQPURL(host: "rabbit"))
        #expect(try AMQPURL("amqp://rabbit/") == AMQPURL(host: "rabbit"))
        #expect(try AMQPURL("amqp://bob@rabbit").password == "guest")
        let tls = try AMQPURL("amqps://rabbit")
        #expect(tls.useTLS && tls.port == 5671)
    }

    @Test func percentDecodes() throws {
        let url = try AMQPURL("amqp://us%65r:p%40ss%3Aword@127.0.0.1:5672/%2f")
        #expect(url.user == "user")
        #expect(url.password == "p@ss:word")
        #expect(url.vhost == "/")
        #expect(try AMQPURL("amqp://h/my%2Fvhost").vhost == "my/vhost")
        #expect(try AMQPURL("amqp://[::1]:5000").host == "::1")
        #expect(try AMQPURL("AMQP://h").host == "h")
    }

    @Test(arguments: [
        "127.0.0.1:5672",
        "http://rabbit",
        "amqp://rabbit:0",
        "amqp://rabbit:65536",
        "amqp://rabbit:port",
        "amqp://rabbit/a/b",
        "amqp://rabbit/%zz",
        "amqp://rabbit?heartbeat=10",
        "amqp://[::1",
        "amqp://::1",
    ])
    func rejectsMalformed(_ text: String) {
        #expect {
            try AMQPURL(text)
        } throws: { error in
            (error as? AMQPError)?.kind == .invalidURL
        }
    }

    @Test func errorsNeverEchoThePassword() throws {
        for text in ["amqp://u:hunter2@h:99x/", "amqp://u:hunter2%zz@h/", "amqp://u:hunter2@h/a/b", "amqp://u:hun/ter2@h"] {
            let error = #expect(throws: AMQPError.self) { try AMQPURL(text) }
            #expect(error.map { !"\($0)".contains("hunter") && !"\($0)".contains("ter2") } == true, "\(text)")
        }
    }

    @Test func redactsThePassword() throws {
        let url = try AMQPURL("amqp://alice:s3cret@rabbit:5673/%2f")
        #expect(url.redacted == "amqp://alice:***@rabbit:5673/%2F")
        #expect("\(url)" == url.redacted)
        #expect(try AMQPURL("amqps://[::1]").redacted == "amqps://guest:***@[::1]:5671/%2F")
    }
}
