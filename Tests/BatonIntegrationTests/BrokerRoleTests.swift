import Baton
import BatonAMQP
import BatonStore
import Foundation
import Testing

extension Integration {
    /// A cluster whose coordinator, worker and client each log in as a RabbitMQ user holding only what
    /// `baton broker-permissions ROLE` prints, on a vhost and database of the test's own; `baton
    /// migrate` (as guest, an administrator) declares the topology. Users, vhost and database are
    /// removed at the end, also on failure.
    @Suite("broker users per role", .serialized)
    @MainActor
    struct BrokerRoleTests {
        /// `rabbitmqctl ARGS` on the test broker's node.
        static func control(_ arguments: [String]) throws -> String {
            let executable = try #require(RabbitMQControl.executable, "rabbitmqctl not found")
            let result = try ChildProcess.run(executable, ["-q", "-n", RabbitMQControl.node] + arguments)
            try #require(result.status == 0, "rabbitmqctl \(arguments.prefix(2).joined(separator: " ")): \(result.stderr)")
            return result.stdout
        }

        /// The URL of `user` on `vhost` of the test broker.
        static func url(user: String, password: String, vhost: String) -> String {
            let amqp = TestCluster.amqpURL
            let host = amqp[amqp.index(after: amqp.lastIndex(of: "@")!)...].prefix { $0 != "/" }
            return "amqp://\(user):\(password)@\(host)/\(vhost)"
        }

        /// Expects `body` to be refused by the broker with ACCESS_REFUSED (403), then reopens channel 1.
        static func expectRefused(_ what: String, on connection: AMQPConnection, _ body: () throws -> Void) throws {
            do {
                try body()
                Issue.record("the worker's user could \(what)")
            } catch let error as AMQPError {
                #expect(error.code == .accessRefused, "\(what): \(error)")
            }
            try connection.openChannel(1)
        }

        @Test("every feature works with one least-privileged user per role; the worker's user may not declare, delete, purge or publish a task")
        func leastPrivilege() throws {
            let tag = UUID().uuidString.prefix(8).lowercased()
            let vhost = "baton-perms-roles-\(tag)"
            let database = "baton_perms_roles_\(tag)"
            let password = UUID().uuidString
            let users = BrokerRole.allCases.filter { $0 != .migrate }.map { ($0, "baton-perms-\(tag)-\($0.rawValue)") }
            defer {
                for (_, user) in users { _ = try? Self.control(["delete_user", user]) }
                _ = try? Self.control(["delete_vhost", vhost])
                if let admin = try? TestCluster.sql() {
                    _ = try? admin.execute("drop database if exists \(database) with (force)")
                    admin.close()
                }
            }
            let databaseURL = try TestCluster.freshDatabase(named: database)
            try ProjectScript.run("services.sh", ["vhost", vhost, "--fresh"])  // guest, an administrator, may use it
            var urls: [BrokerRole: String] = [:]
            for (role, user) in users {
                let printed = try TestCluster.cli(["broker-permissions", role.rawValue, "--json"])
                #expect(printed.status == 0, "\(printed.stderr)")
                let json = try JSONParser.parse(printed.stdout)
                let regexes = try ["configure", "write", "read"].map { try #require(json[$0]?.stringValue, "\(printed.stdout)") }
                _ = try Self.control(["add_user", user, password])
                _ = try Self.control(["set_permissions", "-p", vhost, user] + regexes)
                urls[role] = Self.url(user: user, password: password, vhost: vhost)
            }
            let admin = Self.url(user: "guest", password: "guest", vhost: vhost)
            let migrated = try TestCluster.cli(
                ["migrate", "--partitions", "4"], environment: ["BATON_DATABASE_URL": databaseURL, "BATON_AMQP_URL": admin])
            #expect(migrated.status == 0, "\(migrated.stderr)")

            let cluster = TestCluster()
            defer { cluster.stopAll() }
            let client = ["BATON_DATABASE_URL": databaseURL, "BATON_AMQP_URL": urls[.client]!]
            try cluster.start(
                ["coordinator"], name: "coordinator", environment: ["BATON_DATABASE_URL": databaseURL, "BATON_AMQP_URL": urls[.coordinator]!])
            try cluster.start(
                ["worker", "--demo", "--concurrency", "4"], name: "worker",
                environment: ["BATON_DATABASE_URL": "postgresql://nobody@127.0.0.1:1/none", "BATON_AMQP_URL": urls[.worker]!])

            // Dependencies and injection, a retry, a map.
            let file = try GraphFixtures.write([
                "name": "roles",
                "nodes": [
                    "a": ["procedure": "baton.add", "input": ["values": [1, 2]]],
                    "flaky": [
                        "procedure": "baton.fail", "input": ["message": "not yet", "succeed_on_attempt": 2],
                        "retry": ["attempts": 3, "wait": ["constant": "100ms"]],
                    ],
                    "m": ["map": ["over": [1, 2, 3], "procedure": "baton.add", "input": ["values": [["$item": ""], ["$from": "a"]]]]],
                    "all": ["procedure": "baton.echo", "input": ["sum": ["$from": "a"], "flaky": ["$from": "flaky"], "m": ["$from": "m"]]],
                ],
            ])
            let run = try TestCluster.cli(["submit", file, "--wait", "--timeout", "60", "--json"], environment: client)
            #expect(run.status == 0, "\(run.stderr)\n\(cluster.log("coordinator"))\n\(cluster.log("worker"))")
            let runID = try #require(try JSONParser.parse(run.stdout)["run_id"]?.stringValue, "\(run.stdout)")
            let store = try Store(url: databaseURL)
            defer { store.close() }
            let nodes = try TestCluster.nodes(store, runID)
            #expect(nodes["all"]?.output == ["sum": 3, "flaky": ["attempt": 2], "m": [4, 5, 6]], "\(nodes["all"]?.output as Any)")

            // A cancel reaches the worker through its own control queue.
            let sleeper = try GraphFixtures.write(["name": "sleeper", "nodes": ["s": ["procedure": "baton.sleep", "input": ["seconds": 60]]]])
            let submitted = try TestCluster.cli(["submit", sleeper, "--json"], environment: client)
            let sleepID = try #require(try JSONParser.parse(submitted.stdout)["run_id"]?.stringValue, "\(submitted.stderr)")
            try TestCluster.waitUntil(20, "the sleep to start") { try TestCluster.nodes(store, sleepID)["s"]?.status == "running" }
            let cancelled = try TestCluster.cli(["cancel", sleepID], environment: client)
            #expect(cancelled.status == 0, "\(cancelled.stderr)")
            #expect(try TestCluster.waitForRun(sleepID, store: store, seconds: 20) == "cancelled")
            #expect(try TestCluster.nodes(store, sleepID)["s"]?.error?.contains("cancel") == true)

            // What the worker's user may not do.
            let worker = try AMQPConnection(url: urls[.worker]!)
            defer { worker.close() }
            try Self.expectRefused("declare a queue", on: worker) { try worker.declareQueue(name: "baton.tasks.default:new") }
            try Self.expectRefused("declare an exchange", on: worker) { try worker.declareExchange(name: BatonTopology.tasksExchange) }
            try Self.expectRefused("delete a task queue", on: worker) { try worker.deleteQueue(name: "baton.tasks.default:baton.add") }
            try Self.expectRefused("delete a result queue", on: worker) { try worker.deleteQueue(name: BatonTopology.resultsQueue(partition: 0)) }
            try Self.expectRefused("purge a result queue", on: worker) { try worker.purgeQueue(name: BatonTopology.resultsQueue(partition: 0)) }
            try Self.expectRefused("purge the dead letters", on: worker) { try worker.purgeQueue(name: BatonTopology.deadLettersQueue) }
            try worker.enableConfirms()
            try Self.expectRefused("publish a task to baton.tasks", on: worker) {
                try worker.publish(exchange: BatonTopology.tasksExchange, routingKey: "default:baton.add", body: Array("{}".utf8), persistent: true)
                try worker.waitForConfirms(timeout: 5)
            }
            // Nor the client's (it needs the broker for nothing).
            let clientConnection = try AMQPConnection(url: urls[.client]!)
            defer { clientConnection.close() }
            try Self.expectRefused("(as the client) publish a task", on: clientConnection) {
                try clientConnection.publish(exchange: BatonTopology.tasksExchange, routingKey: "default:baton.add", body: [], persistent: true)
                try clientConnection.declareQueue(name: "amq.gen-x", passive: true)  // a round trip that sees the refusal
            }
        }
    }
}
