import Foundation
import Testing

@testable import BatonAMQP

@Suite("BrokerRole: the rabbitmqctl permissions of each role match what it uses and nothing it must not touch")
struct BrokerRoleTests {
    /// Whether RabbitMQ would grant `name` under `pattern` (it searches, unanchored; ours anchor themselves).
    static func grants(_ pattern: String, _ name: String) -> Bool { name.firstMatch(of: try! Regex(pattern)) != nil }

    static let taskQueues = PriorityBand.quorum.map { $0.queue(pool: "default", procedure: "baton.add") }
    static let server = "amq.gen-JzTY20BRgKO-HjmUJj0wLg"

    @Test("a worker configures only its server-named control queue, writes its reports, reads its tasks")
    func worker() {
        let p = BrokerRole.worker.permissions
        #expect(Self.grants(p.configure, Self.server))
        for name in Self.taskQueues + [
            BatonTopology.tasksExchange, BatonTopology.resultsQueue(partition: 0), BatonTopology.deadLettersQueue,
            BatonTopology.controlExchange, "baton.queue-type.quorum",
        ] {
            #expect(!Self.grants(p.configure, name), "configure \(name)")
        }
        for name in [
            BatonTopology.reportsExchange, BatonTopology.heartbeatsExchange, BatonTopology.deadExchange, BatonTopology.requeueExchange,
            Self.server,
        ] {
            #expect(Self.grants(p.write, name), "write \(name)")
        }
        for name in [BatonTopology.tasksExchange, BatonTopology.controlExchange, "amq.default", "baton.results.0", "baton.deadx"] {
            #expect(!Self.grants(p.write, name), "write \(name)")
        }
        for name in Self.taskQueues + [BatonTopology.controlExchange, Self.server] { #expect(Self.grants(p.read, name), "read \(name)") }
        for name in [
            BatonTopology.resultsQueue(partition: 3), BatonTopology.resultsQueue, BatonTopology.deadLettersQueue, BatonTopology.heartbeatsQueue,
            BatonTopology.tasksExchange,
        ] {
            #expect(!Self.grants(p.read, name), "read \(name)")
        }
    }

    @Test("a coordinator declares task queues and its heartbeat queue, not the shared topology")
    func coordinator() {
        let p = BrokerRole.coordinator.permissions
        for name in Self.taskQueues + [Self.server] { #expect(Self.grants(p.configure, name), "configure \(name)") }
        for name in [
            BatonTopology.tasksExchange, BatonTopology.resultsQueue(partition: 0), BatonTopology.deadLettersQueue,
            BatonTopology.heartbeatsQueue, "baton.queue-type.quorum",
        ] {
            #expect(!Self.grants(p.configure, name), "configure \(name)")
        }
        for name in [BatonTopology.tasksExchange, BatonTopology.controlExchange, BatonTopology.reportsExchange, BatonTopology.deadExchange] {
            #expect(Self.grants(p.write, name), "write \(name)")
        }
        for name in [
            BatonTopology.resultsQueue(partition: 0), BatonTopology.resultsQueue(partition: 1023), BatonTopology.resultsQueue,
            BatonTopology.heartbeatsQueue, BatonTopology.deadLettersQueue, Self.server,
        ] {
            #expect(Self.grants(p.read, name), "read \(name)")
        }
    }

    @Test("a client is granted nothing; migrate everything of Baton's and nothing else")
    func clientAndMigrate() {
        let client = BrokerRole.client.permissions
        for pattern in [client.configure, client.write, client.read] {
            #expect(pattern == "^$")
            for name in Self.taskQueues + [BatonTopology.tasksExchange, Self.server, "amq.default"] { #expect(!Self.grants(pattern, name)) }
        }
        let migrate = BrokerRole.migrate.permissions
        for name in [
            BatonTopology.tasksExchange, BatonTopology.reportsExchange, BatonTopology.requeueExchange, BatonTopology.resultsQueue(partition: 9),
            BatonTopology.deadLettersQueue, "baton.queue-type.quorum",
        ] {
            #expect(Self.grants(migrate.configure, name) && Self.grants(migrate.write, name) && Self.grants(migrate.read, name), "\(name)")
        }
        #expect(!Self.grants(migrate.configure, "other.queue"))
    }

    @Test("an unknown role names itself and the valid ones")
    func unknownRole() {
        #expect(BrokerRole.problem("admin") == "unknown role 'admin' (use coordinator, worker, client, migrate)")
        #expect(BrokerRole.problem("worker") == nil)
    }
}
