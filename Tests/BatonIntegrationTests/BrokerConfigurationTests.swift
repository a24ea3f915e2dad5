import BatonAMQP
import Foundation
import Testing

extension Integration {
    /// The AMQP half of the error table, on the real broker: a configuration error ends `baton
    /// coordinator` and `baton worker` at start-up with one line and exit status 1, never a reconnect loop.
    @Suite("broker configuration errors", .serialized)
    @MainActor
    struct BrokerConfigurationTests {
        static func cases() throws -> [(name: String, url: String, expect: String)] {
            let base = TestCluster.amqpURL
            let slash = try #require(base.lastIndex(of: "/"))
            #expect(base.contains("guest:guest@"), "the test URL is expected to log in as guest")
            return [
                ("wrong password", base.replacingOccurrences(of: "guest:guest@", with: "guest:not-the-password@"), "login refused"),
                ("missing vhost", base[..<slash] + "/no-such-vhost-\(UUID().uuidString.prefix(6))", "login refused"),
                ("unparsable URL", "amqp://guest:guest@127.0.0.1:notaport/%2f", "invalid AMQP URL"),
                ("a bad entry in a URL list", base + ",127.0.0.1:notaport", "entry 2 of 2 in the URL list"),
                // A refused login ends the search through a list: the other brokers would refuse it too.
                (
                    "wrong password, in a list", base.replacingOccurrences(of: "guest:guest@", with: "guest:not-the-password@") + ",127.0.0.1:1",
                    "login refused"
                ),
            ]
        }

        @Test(arguments: ["coordinator", "worker", "worker-processes"])
        func configurationErrorsAreFatalAtStartUp(_ command: String) throws {
            _ = TestCluster()
            for (name, url, expect) in try Self.cases() {
                let result = try Self.runBaton(command, amqpURL: url)
                #expect(result.status == 1, "\(command), \(name): exit \(result.status); stderr: \(result.stderr)")
                let lines = result.stderr.split(separator: "\n").filter { $0.hasPrefix("baton: ") }
                #expect(lines.count == 1, "\(command), \(name): stderr: \(result.stderr)")
                #expect(lines.first?.contains(expect) == true, "\(command), \(name): stderr: \(result.stderr)")
                #expect(!result.stderr.contains("not-the-password"), "\(command), \(name): the password is shown")
            }
        }

        /// A declare that disagrees with what exists (406 PRECONDITION_FAILED) is fatal too. (A worker
        /// declares nothing durable: `baton migrate` and the coordinator do.)
        @Test(arguments: ["coordinator", "migrate"])
        func aDeclareThatDisagreesIsFatalAtStartUp(_ command: String) throws {
            _ = TestCluster()
            let admin = try AMQPConnection(url: TestCluster.amqpURL)
            defer { admin.close() }
            try admin.deleteExchange(name: BatonTopology.controlExchange)
            try admin.declareExchange(name: BatonTopology.controlExchange, type: "direct", durable: true)
            defer {
                try? admin.deleteExchange(name: BatonTopology.controlExchange)
                try? admin.declareExchange(name: BatonTopology.controlExchange, type: "fanout", durable: true)
            }
            let result = try Self.runBaton(command, amqpURL: TestCluster.amqpURL)
            #expect(result.status == 1, "exit \(result.status); stderr: \(result.stderr)")
            #expect(result.stderr.contains("406"), "stderr: \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").filter { $0.hasPrefix("baton: ") }.count == 1, "stderr: \(result.stderr)")
        }

        /// Runs `baton coordinator`, `baton worker` or `baton migrate` against `amqpURL`; a process still running after
        /// the deadline (a reconnect loop) is killed and fails the test.
        static func runBaton(_ command: String, amqpURL: String) throws -> (status: Int32, stderr: String) {
            let arguments: [String] =
                switch command {
                case "coordinator": ["coordinator"]
                case "worker-processes": ["worker", "--processes", "2"]
                case "migrate": ["migrate"]
                default: ["worker"]
                }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: TestCluster.batonPath)
            process.arguments = arguments
            var env = ProcessInfo.processInfo.environment
            env["BATON_DATABASE_URL"] = TestCluster.databaseURL
            env["BATON_AMQP_URL"] = amqpURL
            process.environment = env
            let err = Pipe()
            process.standardError = err
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            let deadline = Date().addingTimeInterval(20)
            while process.isRunning && Date() < deadline { usleep(20_000) }
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                Issue.record("baton \(arguments.joined(separator: " ")) was still running after 20 s: a reconnect loop")
            }
            process.waitUntilExit()
            let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            return (process.terminationStatus, stderr)
        }
    }
}
