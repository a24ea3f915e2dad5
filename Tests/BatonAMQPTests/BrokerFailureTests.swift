import BatonSeams
import Testing

@testable import BatonAMQP

@Suite("BrokerFailure: RabbitMQ's errors as the seams' values")
struct BrokerFailureTests {
    @Test func aTimeoutIsATimeoutAConfigurationErrorStaysOneAndTheRestReconnect() {
        #expect(BrokerFailure(AMQPError(.timeout, "publishes still unconfirmed")) == .timeout)
        #expect(BrokerFailure(AMQPError(.loginRefused, "ACCESS_REFUSED", replyCode: 403)) == .configuration)
        #expect(BrokerFailure(AMQPError(.channelClosed, "PRECONDITION_FAILED", channel: 1, replyCode: 406)) == .configuration)
        #expect(BrokerFailure(AMQPError(.invalidURL, "no host")) == .configuration)
        #expect(BrokerFailure(AMQPError(.connectionLost, "CONNECTION_FORCED", replyCode: 320)) == .reconnect)
        #expect(BrokerFailure(AMQPError(.channelClosed, "NOT_FOUND", channel: 1, replyCode: 404)) == .reconnect)
        #expect(BrokerFailure(AMQPError(.nacked, "x")) == .reconnect)
    }

    @Test func anErrorNoBrokerRaisedIsNone() {
        struct Other: Error {}
        #expect(BrokerFailure(Other()) == nil)
    }
}
