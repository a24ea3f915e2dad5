import Foundation
import Testing

/// `rabbitmqctl` against the test broker's node (`BATON_RMQ_NODE`, default `baton@localhost`, as
/// deploy/local/services.sh starts it): lists and closes client connections, to fail one
/// connection of a process while its others stay up.
enum RabbitMQControl {
    static let node = ProcessInfo.processInfo.environment["BATON_RMQ_NODE"] ?? "baton@localhost"

    /// One client connection: the broker's process id for it and the name the client gave it.
    struct Connection: Equatable {
        let pid: String
        let vhost: String
        let name: String
    }

    static var executable: String? {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init) + ["/usr/sbin"]
        return path.map { "\($0)/rabbitmqctl" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The client connections to `vhost` that named themselves (AMQP `connection_name`).
    static func connections(vhost: String) throws -> [Connection] {
        let output = try run(["list_connections", "--no-table-headers", "pid", "vhost", "client_properties"])
        // <baton@localhost.1.2.0>\tbaton-hc\t[{"product","rabbitmq-c"},...,{"connection_name","baton-worker-publish w"}]
        let pattern = /^(<[^>]+>)\t([^\t]*)\t.*\{"connection_name",(?:longstr,)?"([^"]*)"\}/
        return output.split(separator: "\n").compactMap { line in
            guard let match = String(line).firstMatch(of: pattern) else { return nil }
            return Connection(pid: String(match.output.1), vhost: String(match.output.2), name: String(match.output.3))
        }.filter { $0.vhost == vhost }
    }

    /// Closes one connection as an operator would (the client sees a forced close, 320).
    static func close(_ connection: Connection, reason: String = "test") throws {
        _ = try run(["close_connection", connection.pid, reason])
    }

    fileprivate static func run(_ arguments: [String]) throws -> String {
        guard let executable else { throw ControlError(message: "rabbitmqctl not found in PATH or /usr/sbin") }
        let result = try ChildProcess.run(executable, ["-q", "-n", node] + arguments)
        guard result.status == 0 else {
            throw ControlError(message: "rabbitmqctl \(arguments.first ?? "") exited \(result.status): \(result.stderr)")
        }
        return result.stdout
    }

    struct ControlError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}

extension RabbitMQControl {
    /// Deletes `queue` in `vhost` as an operator would (`rabbitmqctl delete_queue`): its messages go,
    /// and its consumers are cancelled.
    static func deleteQueue(_ queue: String, vhost: String) throws {
        _ = try run(["delete_queue", "-p", vhost, queue])
    }

    /// Empties `queue` in `vhost` (`rabbitmqctl purge_queue`).
    static func purgeQueue(_ queue: String, vhost: String) throws {
        _ = try run(["purge_queue", "-p", vhost, queue])
    }
}
