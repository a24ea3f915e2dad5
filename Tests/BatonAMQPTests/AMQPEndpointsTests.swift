import BatonAMQP
import Foundation
import Testing

/// A list of brokers in one URL, as a RabbitMQ cluster is given: parsing, and connecting to the
/// first that answers on the real broker.
struct AMQPEndpointsTests {
    @Test func oneURLIsAListOfOne() throws {
        let endpoints = try AMQPEndpoints("amqp://u:p@h1:5673/v")
        #expect(endpoints.urls == [try AMQPURL("amqp://u:p@h1:5673/v")])
    }

    @Test func hostsTakeEverythingElseFromTheFirstURL() throws {
        let endpoints = try AMQPEndpoints("amqps://u:s3cret@h1/v%2fx?cacertfile=/ca.pem, h2:5680 ,[::1]:5681,amqp://w:x@h4:1/y")
        #expect(endpoints.urls.map(\.host) == ["h1", "h2", "::1", "h4"])
        #expect(endpoints.urls.map(\.port) == [5671, 5680, 5681, 1])
        #expect(endpoints.urls[1].user == "u" && endpoints.urls[1].password == "s3cret" && endpoints.urls[1].vhost == "v/x")
        #expect(endpoints.urls[1].useTLS && endpoints.urls[1].caCertificatePath == "/ca.pem")
        #expect(endpoints.urls[3].user == "w" && endpoints.urls[3].vhost == "y" && !endpoints.urls[3].useTLS)
        #expect(!endpoints.redacted.contains("s3cret") && endpoints.redacted.components(separatedBy: "***").count == 5)
    }

    @Test(arguments: [
        ("amqp://u:p@h1/v,", "entry 2 of 2 in the URL list: it is empty"),
        ("amqp://u:p@h1/v,h2:99999", "entry 2 of 2 in the URL list: the port must be a number from 1 to 65535"),
        ("h1,amqp://u:p@h2/v", "entry 1 of 2 in the URL list: expected amqp://host or amqps://host"),
        ("amqp://u:p@h1/v,x:y@h2", "entry 2 of 2 in the URL list: a host in a list is host or host:port; give a whole URL for anything else"),
        ("amqp://u:p@h1/v,h2,ftp://h3", "entry 3 of 3 in the URL list: unsupported scheme 'ftp': expected amqp:// or amqps://"),
    ])
    func aBadEntryIsNamed(_ text: String, _ message: String) {
        #expect {
            try AMQPEndpoints(text)
        } throws: { error in
            (error as? AMQPError)?.detail == message && (error as? AMQPError)?.kind == .invalidURL
        }
    }

    @Test func aBadEntryNeverEchoesThePassword() {
        #expect {
            try AMQPEndpoints("amqp://u:s3cret@h1/v,h2:s3cret")
        } throws: { error in
            !"\(error)".contains("s3cret")
        }
    }

    @Test func aConnectionGoesToTheFirstBrokerThatAnswers() throws {
        let live = try AMQPURL(Broker.url)
        // Port 1 on this host refuses at once: a dead node of the cluster, listed first.
        let vhost = live.vhost.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let list = "\(live.useTLS ? "amqps" : "amqp")://\(live.user):\(live.password)@127.0.0.1:1/\(vhost),\(live.host):\(live.port)"
        let connection = try AMQPConnection(url: list, connectionName: "baton-endpoints-test")
        defer { connection.close() }
        #expect(connection.url.port == live.port)
        let queue = try connection.declareQueue(name: "", durable: false, exclusive: true, autoDelete: true).name
        #expect(queue.hasPrefix("amq.gen"))
    }

    @Test func whenNoBrokerAnswersTheErrorSaysSo() {
        #expect {
            try AMQPConnection(url: "amqp://guest:guest@127.0.0.1:1/%2f,127.0.0.1:2", timeoutSeconds: 2)
        } throws: { error in
            let error = error as? AMQPError
            return error?.kind == .connectionFailed && (error?.detail.hasSuffix("no broker of the list of 2 answered") ?? false)
        }
    }
}
