import BatonAMQP
import Foundation
import Testing

@Suite struct FailureTests {
    @Test func passiveDeclareOfMissingQueueIsAClearChannelError() throws {
        let connection = try Broker.connect()
        let missing = Broker.unique("missing")
        let error = try #require(
            #expect(throws: AMQPError.self) {
                try connection.declareQueue(name: missing, passive: true)
            })
        #expect(error.kind == .channelClosed)
        #expect(error.replyCode == 404)
        #expect(error.channel == 1)
        #expect(!error.isConnectionLost)
        #expect("\(error)".contains("404"))
        #expect("\(error)".contains(missing))
        #expect(connection.isOpen)

        // The closed channel says why until it is reopened.
        let again = #expect(throws: AMQPError.self) { try connection.purgeQueue(name: missing) }
        #expect(again?.kind == .channelNotOpen)
        #expect(again.map { "\($0)".contains("404") && "\($0)".contains("openChannel(1)") } == true)
        try connection.openChannel(1)
        let queue = try connection.declareQueue(name: "", durable: false, exclusive: true)
        #expect(queue.name.hasPrefix("amq.gen-"))
    }

    @Test func conflictingDeclareIsPreconditionFailed() throws {
        let queue = Broker.unique("conflict")
        let connection = try Broker.connect()
        defer {
            try? connection.openChannel(1)
            _ = try? connection.deleteQueue(name: queue)
        }
        try connection.declareQueue(name: queue, durable: true)
        let error = try #require(
            #expect(throws: AMQPError.self) {
                try connection.declareQueue(name: queue, durable: false)
            })
        #expect(error.kind == .channelClosed)
        #expect(error.replyCode == 406)
        #expect(error.replyText?.contains("PRECONDITION_FAILED") == true)
        #expect(!error.isConnectionLost)
    }

    @Test func closedPortFailsClearlyWithoutThePassword() throws {
        let error = try #require(
            #expect(throws: AMQPError.self) {
                try AMQPConnection(url: "amqp://guest:topsecret-pw@127.0.0.1:1/%2f", timeoutSeconds: 5)
            })
        #expect(error.kind == .connectionFailed)
        #expect(!"\(error)".contains("topsecret"))
        #expect("\(error)".contains("127.0.0.1:1"))
    }

    @Test func wrongPasswordFailsWithoutThePassword() throws {
        var url = try AMQPURL(Broker.url)
        url.password = "wrong-secret-\(UUID().uuidString)"
        let error = try #require(#expect(throws: AMQPError.self) { try AMQPConnection(url: url) })
        #expect(error.kind == .loginRefused)
        #expect(error.disposition == .configuration, "a wrong password is not a reason to reconnect for ever")
        #expect(!"\(error)".contains("wrong-secret"))
    }

    @Test func closedConnectionReportsConnectionLost() throws {
        let connection = try Broker.connect()
        #expect(connection.isOpen)
        connection.close()
        connection.close()
        #expect(!connection.isOpen)
        let error = #expect(throws: AMQPError.self) {
            try connection.publish(exchange: "", routingKey: "x", body: [], persistent: false)
        }
        #expect(error?.isConnectionLost == true)
    }

    @Test func unopenedChannelAndMissingConfirmModeAreClear() throws {
        let connection = try Broker.connect()
        let notOpen = #expect(throws: AMQPError.self) {
            try connection.publish(exchange: "", routingKey: "x", body: [], persistent: false, channel: 9)
        }
        #expect(notOpen?.kind == .channelNotOpen)
        let noConfirms = #expect(throws: AMQPError.self) { try connection.waitForConfirms() }
        #expect(noConfirms?.kind == .invalidArgument)
    }

    @Test func publishingToAMissingExchangeFailsTheConfirmWait() throws {
        let connection = try Broker.connect()
        try connection.enableConfirms()
        try connection.publish(exchange: Broker.unique("nowhere"), routingKey: "x", body: [], persistent: false)
        let error = #expect(throws: AMQPError.self) { try connection.waitForConfirms(timeout: 10) }
        #expect(error?.kind == .channelClosed)
        #expect(error?.replyCode == 404)
        #expect(connection.isOpen)
    }
}

@Suite struct ConsumerCancelTests {
    @Test func deletingTheQueueCancelsTheConsumerVisibly() throws {
        let queue = Broker.unique("cancelled")
        let consumer = try Broker.connect()
        try consumer.declareQueue(name: queue, durable: false)
        let tag = try consumer.consume(queue: queue)

        let admin = try Broker.connect()
        try admin.deleteQueue(name: queue)

        let error = #expect(throws: AMQPError.self) { _ = try consumer.nextDelivery(timeout: 10) }
        #expect(error?.kind == .consumerCancelled)
        #expect(error.map { "\($0)".contains(tag) } == true)
        #expect(consumer.isOpen)
    }
}
